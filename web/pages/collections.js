// #/collections — every collection the caller may see (the operator: all; a creator: their own),
// newest first: cover, title, status, minted / max. Search and status filter live in the address.
import { api } from '../api.js';
import { STATUS_TONE, act, art, badge, empty, errorText, feedback, h, say } from '../dom.js';
import { hrefOf, navigate } from '../router.js';
import { isOperator } from '../session.js';

export function supplyBar(minted, max) {
  const share = max ? Math.min(1, minted / max) : 0;
  const bar = h('span', { class: 'bar', role: 'presentation' }, h('span', { class: 'fill' }));
  bar.firstChild.style.width = `${(share * 100).toFixed(1)}%`;
  return bar;
}

function collectionCard(c) {
  const max = c.max_supply ?? c.editions;
  const status = c.status === 'deployed' && c.mint_status === 'paused' ? 'paused' : c.status;
  return h(
    'li',
    { class: 'collection-card', 'data-collection': c.id },
    h(
      'a',
      { href: `#/collections/${c.id}`, class: 'cover-link', 'aria-label': c.title },
      art(c.cover_image_url, '', { class: 'cover', placeholder: c.title.slice(0, 1).toUpperCase() }),
    ),
    h(
      'div',
      { class: 'collection-body' },
      h('a', { href: `#/collections/${c.id}`, class: 'title' }, c.title),
      h(
        'div',
        { class: 'meta' },
        badge(status, STATUS_TONE[status] ?? 'neutral', { 'data-field': 'status' }),
        c.chain_name ? h('span', { class: 'muted', 'data-field': 'chain' }, c.chain_name) : null,
      ),
      h(
        'div',
        { class: 'supply' },
        h('span', { 'data-field': 'supply' }, `${c.minted} / ${max}`),
        h('span', { class: 'muted' }, ' minted'),
        supplyBar(c.minted, max),
      ),
    ),
  );
}

/** A built-in tool (a global collection): a develop step, not a collection to deploy or mint. */
function toolCard(c) {
  return h(
    'li',
    { class: 'tool-card', 'data-collection': c.id, 'data-tool': c.title },
    h('a', { href: `#/collections/${c.id}`, class: 'title' }, c.title),
    badge('tool', 'info', { 'data-field': 'status' }),
    h('span', { class: 'muted' }, 'turns an output into a new one (develop)'),
  );
}

export function collectionsPage(_params, query) {
  const q = query.get('q') ?? '';
  const status = query.get('status') ?? '';
  const search = h('input', {
    name: 'q',
    type: 'search',
    value: q,
    placeholder: 'Search titles',
    maxlength: 200,
    'aria-label': 'search titles',
  });
  const statusSelect = h(
    'select',
    { name: 'status', 'aria-label': 'status' },
    [
      ['', 'Any status'],
      ['draft', 'Draft'],
      ['deployed', 'Deployed'],
    ].map(([v, t]) => h('option', { value: v, selected: v === status }, t)),
  );
  const form = h(
    'form',
    { id: 'list-form', class: 'toolbar', role: 'search' },
    search,
    statusSelect,
    h('button', { type: 'submit', class: 'secondary' }, 'Search'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    navigate(hrefOf('/collections', { q: search.value.trim(), status: statusSelect.value }));
  });
  statusSelect.addEventListener('change', () => form.requestSubmit());

  const list = h('ul', { id: 'collection-list', class: 'collection-grid', 'aria-busy': 'true' });
  // Global collections (the built-in Animate and Variation…) are tools, shown apart: never
  // offered for deploy or mint (docs/admin-ui.md "Built-in tools").
  const tools = h('ul', { id: 'builtin-list', class: 'tool-list' });
  const toolsSection = h(
    'section',
    { class: 'builtin-tools', id: 'builtin-tools', hidden: true, 'aria-labelledby': 'builtin-heading' },
    h('h2', { id: 'builtin-heading' }, 'Built-in tools'),
    h(
      'p',
      { class: 'muted' },
      'Develop steps that make a new output from one you have (an animation, a variation). They are not deployed or minted.',
    ),
    tools,
  );
  let seen = 0;
  const line = feedback();
  const more = h('button', { id: 'list-more', type: 'button', class: 'secondary', hidden: true }, 'More');
  let cursor = null;

  async function load(append) {
    const res = await api('GET', '/api/nft/collections/list', { query: { q, status, limit: 24, cursor: append ? cursor : undefined } });
    const ordinary = res.collections.filter((c) => !c.is_global);
    const builtIn = res.collections.filter((c) => c.is_global);
    if (!append) tools.replaceChildren();
    tools.append(...builtIn.map(toolCard));
    toolsSection.hidden = tools.children.length === 0;
    const cards = ordinary.map(collectionCard);
    seen = (append ? seen : 0) + cards.length;
    if (append && seen === cards.length && cards.length) list.replaceChildren(...cards);
    else if (append) list.append(...cards);
    else if (cards.length) list.replaceChildren(...cards);
    else
      list.replaceChildren(
        h(
          'li',
          { class: 'wide' },
          q || status
            ? empty('No collection matches.', h('a', { href: '#/collections' }, 'Show all'))
            : empty(
                isOperator() ? 'No collection on this platform yet.' : 'You have no collection yet.',
                h('a', { href: '#/collections/new', class: 'button' }, 'Create a collection'),
              ),
        ),
      );
    list.setAttribute('aria-busy', 'false');
    cursor = res.next_cursor;
    more.hidden = !cursor;
  }
  more.addEventListener('click', () => act(more, line, () => load(true)));
  load(false).catch((err) => {
    list.setAttribute('aria-busy', 'false');
    say(line, errorText(err), 'bad');
  });

  const el = h(
    'div',
    { class: 'page' },
    h(
      'div',
      { class: 'page-head' },
      h(
        'div',
        {},
        h('h1', {}, 'Collections'),
        h('p', { class: 'muted' }, isOperator() ? 'Every collection on the platform.' : 'Your collections.'),
      ),
      h('a', { href: '#/collections/new', class: 'button', id: 'new-collection' }, 'New collection'),
    ),
    form,
    list,
    h('div', { class: 'more' }, more, line),
    toolsSection,
  );
  return { el, title: 'Collections' };
}
