// #/collections/<id>[/<tab>] — one collection, the page's only one: its header and every tab read
// the same record (GET /api/nft/collections/overview: the record beside what its contract says),
// so no panel can point at another collection. Actions re-read it and redraw the header.
import { api } from '../api.js';
import { STATUS_TONE, art, badge, empty, errorText, h, hex } from '../dom.js';
import { activityPanel } from '../panels/activity.js';
import { adminPanel } from '../panels/admin.js';
import { mintPanel } from '../panels/mint.js';
import { overviewPanel } from '../panels/overview.js';
import { salePanel } from '../panels/sale.js';
import { samplesPanel } from '../panels/samples.js';
import { settingsPanel } from '../panels/settings.js';
import { shareButton } from '../panels/share.js';
import { tokensPanel } from '../panels/tokens.js';

const TABS = [
  ['', 'Overview', overviewPanel],
  ['tokens', 'Tokens', tokensPanel],
  ['mint', 'Mint', mintPanel],
  ['sale', 'Sale', salePanel],
  ['samples', 'Samples', samplesPanel],
  ['settings', 'Settings', settingsPanel],
  ['admin', 'Contract', adminPanel],
  ['activity', 'Activity', activityPanel],
];

/** The status a person reads: the record's, or "paused" when the contract says minting is off. */
export function displayStatus(overview) {
  const c = overview.collection;
  if (c.status === 'deployed' && overview.chain && overview.chain.mintActive === false) return 'paused';
  return c.status;
}

function header(overview) {
  const c = overview.collection;
  const status = displayStatus(overview);
  return h(
    'header',
    { class: 'collection-head', id: 'collection-head', 'data-collection': c.id },
    art(c.cover_image_url, 'cover', { class: 'cover small', placeholder: c.title.slice(0, 1).toUpperCase() }),
    h(
      'div',
      { class: 'grow' },
      h('h1', { 'data-field': 'title' }, c.title),
      h(
        'div',
        { class: 'meta' },
        badge(status, STATUS_TONE[status] ?? 'neutral', { 'data-field': 'head-status' }),
        c.contract_address ? hex(c.contract_address, { 'data-field': 'contract_address' }) : h('span', { class: 'muted' }, 'not deployed'),
        c.chain_name ? h('span', { class: 'muted', 'data-field': 'head-chain' }, c.chain_name) : null,
        c.is_global ? badge('built-in tool', 'info') : null,
        h('span', { class: 'muted' }, `${c.tokens_minted} / ${c.max_supply ?? c.editions} minted`),
      ),
    ),
    shareButton(overview),
  );
}

export async function collectionPage(params, query) {
  const { id } = params;
  const tab = params.tab ?? '';
  const entry = TABS.find(([t]) => t === tab);
  const page = h('div', { class: 'page' });
  const crumbs = h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/collections' }, 'Collections'));
  if (!entry) {
    page.append(crumbs, empty(`No tab "${tab}".`, h('a', { href: `#/collections/${id}` }, 'Open the overview')));
    return { el: page, title: 'Not found' };
  }
  let overview;
  try {
    overview = await api('GET', '/api/nft/collections/overview', { query: { collectionId: id } });
  } catch (err) {
    page.append(crumbs, h('h1', {}, 'Collection'), h('p', { class: 'banner bad', role: 'alert', id: 'page-error' }, errorText(err)));
    return { el: page, title: 'Collection' };
  }

  let head = header(overview);
  crumbs.append(h('span', { 'data-field': 'crumb-title' }, overview.collection.title));
  const tabs = h(
    'nav',
    { class: 'tabs', 'aria-label': 'Collection' },
    TABS.map(([t, label]) =>
      h(
        'a',
        { href: `#/collections/${id}${t ? `/${t}` : ''}`, 'data-tab': t || 'overview', 'aria-current': t === tab ? 'page' : undefined },
        label,
      ),
    ),
  );

  const ctx = {
    id,
    query,
    get overview() {
      return overview;
    },
    get collection() {
      return overview.collection;
    },
    /** Re-reads the collection (after an action) and redraws the header; answers the new overview. */
    async reload() {
      overview = await api('GET', '/api/nft/collections/overview', { query: { collectionId: id } });
      const next = header(overview);
      head.replaceWith(next);
      head = next;
      crumbs.querySelector('[data-field=crumb-title]').textContent = overview.collection.title;
      return overview;
    },
  };
  const panel = entry[2](ctx);
  page.append(crumbs, head, tabs, h('div', { class: 'tab-panel', id: `panel-${tab || 'overview'}` }, panel.el));
  return {
    el: page,
    title: `${entry[1]} · ${overview.collection.title}`,
    dispose: () => panel.dispose?.(),
  };
}
