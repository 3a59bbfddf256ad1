// Create, look up and deploy a collection (POST /api/nft/collections/create, GET …/lookup,
// POST /api/nft/collections with platformCollectionId).
import { api } from './api.js';
import { $, busy, fillKv, h, showError, showMessage } from './dom.js';
import { chainId } from './platform.js';

/** The collection on screen: {collection, contractParams} or null. */
let current = null;
const listeners = [];
export const onCollection = (fn) => listeners.push(fn);
export const currentCollection = () => current;

function setCurrent(value) {
  current = value;
  renderCollection();
  // The page's address names the collection: a reload or a shared link opens it again.
  if (current && location.hash !== `#/collections/${current.collection.id}`)
    history.replaceState(null, '', `#/collections/${current.collection.id}`);
  for (const fn of listeners) fn(current);
}

/** The collection the address names (#/collections/<id>), if any. */
export function collectionInAddress() {
  const m = /^#\/collections\/([0-9a-f-]{36})$/i.exec(location.hash);
  return m ? m[1] : null;
}

// --- variable editor -------------------------------------------------------------------------

function variableRow(v = { name: '', options: '', trait: true }) {
  const row = h(
    'div',
    { class: 'variable row' },
    h('input', { name: 'varName', placeholder: 'name', value: v.name, size: 10, 'aria-label': 'variable name' }),
    h('input', { name: 'varOptions', placeholder: 'red:1, blue:3', value: v.options, size: 28, 'aria-label': 'options' }),
    h('label', { class: 'inline' }, h('input', { type: 'checkbox', name: 'varTrait', checked: v.trait }), 'trait'),
  );
  row.append(h('button', { type: 'button', class: 'secondary small', 'aria-label': 'remove variable', onclick: () => row.remove() }, '×'));
  // The odds each option gets, shown as the creator types (or what is wrong with the options).
  const odds = h('small', { class: 'odds muted', 'data-field': 'odds' });
  row.append(odds);
  const update = () => {
    const r = oddsText(row.querySelector('[name=varOptions]').value, row.querySelector('[name=varName]').value.trim());
    odds.textContent = r.text;
    odds.classList.toggle('bad', !r.ok);
  };
  row.addEventListener('input', update);
  update();
  return row;
}

/**
 * `value` or `value:weight`, comma separated. A weight is a number ≥ 0: `red:x` and `blue:-1` are
 * refused with a message naming the option (they were saved as option values before).
 */
export function parseOptions(text, name) {
  const options = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((part) => {
      const colon = part.lastIndexOf(':');
      if (colon < 0) return { value: part, display_name: part, weight: 1 };
      const value = part.slice(0, colon).trim();
      const weightText = part.slice(colon + 1).trim();
      const weight = Number(weightText);
      if (!value) throw new Error(`variable ${name}: option "${part}" has no value before its weight`);
      if (weightText === '' || !Number.isFinite(weight) || weight < 0)
        throw new Error(`variable ${name}: the weight of "${value}" must be a number ≥ 0 (got "${weightText}")`);
      return { value, display_name: value, weight };
    });
  if (options.length === 0) throw new Error(`variable ${name}: give at least one option`);
  if (options.every((o) => o.weight === 0)) throw new Error(`variable ${name}: at least one weight must be above 0`);
  return options;
}

/** Each option's odds in % ("red 20 %, blue 60 %"), or the problem with the options. */
export function oddsText(text, name) {
  try {
    const options = parseOptions(text, name || 'this variable');
    const total = options.reduce((s, o) => s + o.weight, 0);
    return { ok: true, text: options.map((o) => `${o.value} ${((o.weight / total) * 100).toFixed(1)} %`).join(', ') };
  } catch (err) {
    return { ok: false, text: err.message };
  }
}

/** The `$variables` a prompt uses that no variable defines. */
export function undefinedVariables(prompt, names) {
  const used = [...prompt.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
  return [...new Set(used.filter((v) => !names.includes(v)))];
}

/** Generation data v2 from the editor, or from the JSON textarea when it is filled. */
function generationData(form) {
  const json = form.elements.dataJson.value.trim();
  if (json) {
    try {
      return JSON.parse(json);
    } catch (err) {
      throw new Error(`generation data JSON: ${err.message}`);
    }
  }
  const variables = [...document.querySelectorAll('#variables .variable')]
    .map((row) => ({
      name: row.querySelector('[name=varName]').value.trim(),
      options: row.querySelector('[name=varOptions]').value,
      trait: row.querySelector('[name=varTrait]').checked,
    }))
    .filter((v) => v.name)
    .map((v) => ({
      name: v.name,
      type: 'pick',
      value_type: 'strings',
      is_feature: v.trait,
      feature_name: v.name.charAt(0).toUpperCase() + v.name.slice(1),
      is_selectable: true,
      is_user_customizable: false,
      required: false,
      value: parseOptions(v.options, v.name),
    }));
  const intent = form.elements.intent.value;
  const missing = undefinedVariables(
    intent,
    variables.map((v) => v.name),
  );
  if (missing.length > 0)
    throw new Error(`prompt: ${missing.map((m) => `$${m}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not defined by any variable`);
  return {
    version: 'v2',
    steps: [
      {
        id: 1,
        nodeName: 'image',
        nodePayload: { intent, user_image: null, optional_ref_image: null, seed: null },
      },
    ],
    generations: { hashes: [], generations: 0, use_custom_hashes: false },
    variables,
  };
}

// --- rendering -------------------------------------------------------------------------------

function renderCollection() {
  const box = $('#collection-info');
  const deployButton = $('#collection-deploy');
  if (!current) {
    box.replaceChildren(h('p', { class: 'muted' }, 'Create or look up a collection.'));
    deployButton.disabled = true;
    return;
  }
  const c = current.collection;
  const p = current.contractParams ?? {};
  const dl = h('dl', { class: 'kv' });
  fillKv(dl, [
    ['Id', h('code', { 'data-field': 'id' }, c.id)],
    ['Title', c.title],
    ['Editions', String(c.editions)],
    ['Status', h('strong', { 'data-field': 'mint_status' }, c.mint_status ?? '—')],
    ['Contract', h('code', { 'data-field': 'contract_address' }, c.contract_address ?? 'not deployed')],
    ['Chain', c.chain_id == null ? '—' : String(c.chain_id)],
    ['Name / symbol', `${p.name ?? '—'} / ${p.symbol ?? '—'}`],
    ['Base URI', h('code', {}, p.baseURI ?? '—')],
  ]);
  box.replaceChildren(dl);
  deployButton.disabled = Boolean(c.contract_address);
}

export async function lookupCollection(id) {
  const res = await api('GET', '/api/nft/collections/lookup', { query: { collectionId: id } });
  setCurrent({ collection: res.collection, contractParams: res.contractParams });
  return res;
}

async function createCollection(form) {
  const f = form.elements;
  const body = {
    title: f.title.value.trim(),
    description: f.description.value,
    editions: Number(f.editions.value),
    price: Number(f.price.value || 0),
    blockchain: f.blockchain.value,
    data: generationData(form),
  };
  const res = await api('POST', '/api/nft/collections/create', { body });
  $('#lookup-id').value = res.collection.id;
  setCurrent({ collection: res.collection, contractParams: res.contractParams });
  showMessage(`Collection "${res.collection.title}" created.`);
}

async function deployCollection() {
  if (!current) return;
  const p = current.contractParams;
  showMessage('Deploying the collection contract…', 'info');
  const res = await api('POST', '/api/nft/collections', {
    body: {
      chainId: chainId(),
      name: p.name,
      symbol: p.symbol,
      baseURI: p.baseURI,
      contractURI: p.contractURI,
      maxSupply: String(p.maxSupply),
      platformCollectionId: current.collection.id,
    },
  });
  await lookupCollection(current.collection.id);
  showMessage(`Collection deployed at ${res.collection.address}.`);
}

export function initCollections() {
  const vars = $('#variables');
  vars.append(variableRow({ name: 'color', options: 'red:1, blue:3, gold:1', trait: true }));
  vars.append(variableRow({ name: 'animal', options: 'cat, fox, owl', trait: true }));
  $('#add-variable').addEventListener('click', () => vars.append(variableRow()));

  const createForm = $('#create-form');
  createForm.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(createForm.querySelector('button[type=submit]'), () => createCollection(createForm));
  });
  const lookupForm = $('#lookup-form');
  lookupForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const id = lookupForm.elements.collectionId.value.trim();
    busy(lookupForm.querySelector('button'), () => lookupCollection(id));
  });
  $('#collection-deploy').addEventListener('click', (e) => {
    busy(e.currentTarget, deployCollection).then(() => renderCollection());
  });
  // Keep showError reachable for unexpected listener failures.
  window.addEventListener('unhandledrejection', (e) => showError(e.reason));
}
