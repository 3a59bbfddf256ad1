// The collections list (GET /api/nft/collections/list): cover, title, status, supply, chain; a
// title search and "More" for the next page (cursor). Opening one makes it the page's collection.
import { api } from './api.js';
import { $, busy, h } from './dom.js';
import { lookupCollection } from './collections.js';

let nextCursor = null;

function row(c) {
  const supply = `${c.minted} / ${c.max_supply ?? c.editions}`;
  const cover = c.cover_image_url ? h('img', { src: c.cover_image_url, alt: '', class: 'cover' }) : h('span', { class: 'muted' }, '—');
  return h(
    'tr',
    { 'data-collection': c.id },
    h('td', {}, cover),
    h('td', {}, c.title),
    h('td', {}, h('strong', { 'data-field': 'status' }, c.status)),
    h('td', { 'data-field': 'supply' }, supply),
    h('td', {}, c.chain_id == null ? '—' : String(c.chain_id)),
    h(
      'td',
      {},
      h(
        'button',
        { type: 'button', class: 'secondary small', onclick: (e) => busy(e.currentTarget, () => lookupCollection(c.id)) },
        'Open',
      ),
    ),
  );
}

export async function loadCollectionList({ more = false } = {}) {
  const q = $('#list-form').elements.q.value.trim();
  const res = await api('GET', '/api/nft/collections/list', { query: { q, limit: 20, cursor: more ? nextCursor : undefined } });
  const body = $('#collection-list tbody');
  const rows = res.collections.map(row);
  if (more) body.append(...rows);
  else
    body.replaceChildren(
      ...(rows.length
        ? rows
        : [h('tr', {}, h('td', { colspan: 6, class: 'muted' }, q ? 'No collection matches.' : 'No collection yet: create one below.'))]),
    );
  nextCursor = res.next_cursor;
  $('#list-more').hidden = !nextCursor;
}

export function initCollectionList() {
  const form = $('#list-form');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(form.querySelector('button'), () => loadCollectionList());
  });
  $('#list-more').addEventListener('click', (e) => busy(e.currentTarget, () => loadCollectionList({ more: true })));
}
