// #/collections/new — create a collection: details and its generation (prompt and variables,
// validated as typed). On success the page moves to the new collection.
import { api } from '../api.js';
import { act, feedback, field, h } from '../dom.js';
import { generationEditor } from '../editor.js';
import { navigate } from '../router.js';
import { platformChain } from '../session.js';

export function newCollectionPage() {
  const editor = generationEditor(undefined);
  const line = feedback({ id: 'create-feedback' });
  const submit = h('button', { type: 'submit' }, 'Create collection');
  const form = h(
    'form',
    { id: 'create-form', class: 'stack', novalidate: true },
    field('Title', h('input', { name: 'title', required: true, maxlength: 200, autocomplete: 'off' })),
    field('Description', h('textarea', { name: 'description', rows: 2, maxlength: 10000 })),
    h(
      'div',
      { class: 'fields' },
      field(
        'Editions',
        h('input', { name: 'editions', type: 'number', min: 1, max: 1000000, value: 100, required: true }),
        'the max supply',
      ),
      field(
        'Display price (USD)',
        h('input', { name: 'price', type: 'number', min: 0, step: 'any', value: 0 }),
        'shown with the collection; collectors pay the mint price (Settings), which starts at this',
      ),
      // The platform deploys to one chain (NFT_CHAIN_ID): the collection's chain is that one.
      field(
        'Chain',
        h('output', { name: 'chain', 'data-field': 'create-chain' }, platformChain()?.chain_name ?? 'the platform\u2019s chain'),
        'where this platform deploys collections',
      ),
    ),
    editor.el,
    h('div', { class: 'actions' }, submit, line),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(submit, line, async () => {
      const f = form.elements;
      const title = f.title.value.trim();
      if (!title) throw new Error('title: give the collection a title');
      const editions = Number(f.editions.value);
      if (!Number.isInteger(editions) || editions < 1) throw new Error('editions: a whole number ≥ 1');
      const price = Number(f.price.value || 0);
      if (!Number.isFinite(price) || price < 0) throw new Error('price: a number ≥ 0');
      const res = await api('POST', '/api/nft/collections/create', {
        body: {
          title,
          description: f.description.value,
          editions,
          price,
          ...(platformChain()?.blockchain ? { blockchain: platformChain().blockchain } : {}),
          data: editor.read(),
        },
      });
      navigate(`#/collections/${res.collection.id}`);
      return `Collection "${res.collection.title}" created.`;
    });
  });

  const el = h(
    'div',
    { class: 'page narrow-page' },
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/collections' }, 'Collections'), h('span', {}, 'New')),
    h('h1', {}, 'New collection'),
    h('section', { class: 'card' }, form),
  );
  return { el, title: 'New collection' };
}
