// Tokens tab: the gallery with trait filters and rarity. Each trait value shows how many minted
// tokens have it and its share; choosing values (one per trait) filters the gallery. Filters and
// the page are in the address (?trait=Color:Red&page=2), so a reload or a link keeps them.
import { api } from '../api.js';
import { STATUS_TONE, art, badge, empty, errorText, h, hex, pct } from '../dom.js';
import { hrefOf, navigate } from '../router.js';

const LIMIT = 24;

/** The filters in the address: trait type → value. */
function chosen(query) {
  const map = new Map();
  for (const t of query.getAll('trait')) {
    const i = t.indexOf(':');
    if (i > 0) map.set(t.slice(0, i), t.slice(i + 1));
  }
  return map;
}

export function tokenCard(collectionId, t) {
  const state = t.generation?.state ?? 'none';
  const placeholder = state === 'failed' ? 'generation failed' : state === 'completed' || state === 'none' ? 'no image' : `${state}…`;
  return h(
    'li',
    { class: 'token-card', 'data-token': t.token_id },
    h(
      'a',
      { href: `#/collections/${collectionId}/tokens/${t.token_id}`, 'aria-label': `token ${t.token_id}` },
      art(t.image, `token ${t.token_id}`, { placeholder, img: { 'data-token-image': t.token_id } }),
      h(
        'div',
        { class: 'token-body' },
        h(
          'div',
          { class: 'token-title' },
          h('strong', {}, `#${t.token_id}`),
          state !== 'completed' ? badge(state, STATUS_TONE[state] ?? 'neutral') : null,
        ),
        h('div', { class: 'traits-line muted' }, t.traits.map((x) => `${x.value}`).join(' · ') || 'no traits'),
        h('div', { class: 'muted small' }, 'owner ', hex(t.owner)),
      ),
    ),
  );
}

function filters(ctx, rarity, selected) {
  if (rarity.traits.length === 0) return h('p', { class: 'muted' }, 'No traits yet: they appear with the first minted token.');
  const groups = rarity.traits.map((trait) =>
    h(
      'fieldset',
      { class: 'trait-group', 'data-trait': trait.trait_type },
      h('legend', {}, trait.trait_type),
      trait.values.map((v) => {
        const on = selected.get(trait.trait_type) === v.value;
        const next = new Map(selected);
        if (on) next.delete(trait.trait_type);
        else next.set(trait.trait_type, v.value);
        const fill = h('span', { class: 'fill' });
        fill.style.width = `${(v.share * 100).toFixed(1)}%`;
        return h(
          'a',
          {
            class: `trait-value${on ? ' on' : ''}`,
            href: hrefOf(`/collections/${ctx.id}/tokens`, { trait: [...next].map(([k, x]) => `${k}:${x}`) }),
            'aria-pressed': String(on),
            'data-value': v.value,
          },
          h('span', { class: 'value' }, v.value),
          h('span', { class: 'count muted', 'data-field': 'share' }, `${v.count} · ${pct(v.share)}`),
          h('span', { class: 'bar thin' }, fill),
        );
      }),
    ),
  );
  return h(
    'div',
    { class: 'stack' },
    h('p', { class: 'hint' }, `Share of the ${rarity.minted} minted tokens per trait value. Choose values to filter.`),
    ...groups,
    selected.size ? h('a', { href: `#/collections/${ctx.id}/tokens`, id: 'clear-filters' }, 'Clear filters') : null,
  );
}

export function tokensPanel(ctx) {
  const selected = chosen(ctx.query);
  const page = Math.max(1, Number(ctx.query.get('page')) || 1);
  const side = h(
    'aside',
    { class: 'card filters', 'aria-label': 'Trait filters' },
    h('h2', {}, 'Traits'),
    h('p', { class: 'muted' }, 'Loading…'),
  );
  const gallery = h('ul', { class: 'token-grid', id: 'token-grid', 'aria-busy': 'true' });
  const summary = h('p', { class: 'muted', id: 'token-summary' });
  const pager = h('div', { class: 'pager' });
  const el = h('div', { class: 'gallery-layout' }, side, h('div', { class: 'stack' }, summary, gallery, pager));

  (async () => {
    const trait = [...selected].map(([k, v]) => `${k}:${v}`);
    const [rarity, list] = await Promise.all([
      api('GET', '/api/nft/collections/rarity', { query: { collectionId: ctx.id } }),
      api('GET', '/api/nft/tokens', { query: { collectionId: ctx.id, page, limit: LIMIT, trait } }),
    ]);
    side.replaceChildren(h('h2', {}, 'Traits'), filters(ctx, rarity, selected));
    gallery.setAttribute('aria-busy', 'false');
    if (list.tokens.length === 0) {
      gallery.replaceChildren(
        h(
          'li',
          { class: 'wide' },
          selected.size
            ? empty('No token has these traits.', h('a', { href: `#/collections/${ctx.id}/tokens` }, 'Clear filters'))
            : empty('No token minted yet.', h('a', { href: `#/collections/${ctx.id}/mint`, class: 'button' }, 'Mint tokens')),
        ),
      );
    } else gallery.replaceChildren(...list.tokens.map((t) => tokenCard(ctx.id, t)));
    const pages = Math.max(1, Math.ceil(list.total / LIMIT));
    summary.textContent = `${list.total} token${list.total === 1 ? '' : 's'}${selected.size ? ' with these traits' : ''}`;
    const go = (p) => navigate(hrefOf(`/collections/${ctx.id}/tokens`, { trait, page: p > 1 ? p : undefined }));
    pager.replaceChildren(
      ...(pages > 1
        ? [
            h('button', { type: 'button', class: 'secondary small', disabled: page <= 1, onclick: () => go(page - 1) }, 'Previous'),
            h('span', { class: 'muted' }, `Page ${page} of ${pages}`),
            h('button', { type: 'button', class: 'secondary small', disabled: page >= pages, onclick: () => go(page + 1) }, 'Next'),
          ]
        : []),
    );
  })().catch((err) => {
    gallery.setAttribute('aria-busy', 'false');
    summary.replaceChildren(h('span', { class: 'bad', role: 'alert' }, errorText(err)));
  });
  return { el };
}
