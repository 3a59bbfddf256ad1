// Admin actions (POST /api/nft/admin) with an input typed for each action (nft-service.md §4.1.4).
import { api } from './api.js';
import { $, busy, h, short, showMessage } from './dom.js';
import { currentCollection, lookupCollection, onCollection } from './collections.js';
import { chainId } from './platform.js';

const ADDRESS = { type: 'text', pattern: '0x[0-9a-fA-F]{40}', placeholder: '0x…', size: 44 };
const URL_INPUT = { type: 'url', placeholder: 'https://…', size: 44 };

/** action → how its value is entered and sent. */
const ACTIONS = {
  setMintActive: {
    input: () => h('select', { name: 'value' }, h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false')),
    read: (v) => v === 'true',
  },
  setMinter: { input: () => h('input', { name: 'value', ...ADDRESS, required: true }), read: (v) => v.trim() },
  transferOwnership: { input: () => h('input', { name: 'value', ...ADDRESS, required: true }), read: (v) => v.trim() },
  setMaxSupply: {
    input: () => h('input', { name: 'value', type: 'text', inputmode: 'numeric', pattern: '[0-9]+', placeholder: '1000', required: true }),
    read: (v) => v.trim(),
  },
  setBaseURI: { input: () => h('input', { name: 'value', ...URL_INPUT, required: true }), read: (v) => v.trim() },
  setContractURI: { input: () => h('input', { name: 'value', ...URL_INPUT, required: true }), read: (v) => v.trim() },
  // No argument: the box confirms an irreversible change (diamondCut is removed for good).
  freezeUpgrades: {
    input: () => h('input', { name: 'value', type: 'checkbox', required: true, title: 'I understand: irreversible' }),
    read: () => true,
  },
};

function renderValueInput(action) {
  $('#admin-value').replaceChildren(h('label', {}, 'Value ', ACTIONS[action].input()));
}

async function run(form) {
  const result = $('#admin-result');
  // The line next to the button answers this run only: cleared first, then the outcome.
  result.textContent = 'running…';
  result.className = 'muted';
  const action = form.elements.action.value;
  try {
    const value = ACTIONS[action].read(form.elements.value.value);
    const res = await api('POST', '/api/nft/admin', {
      body: { chainId: chainId(), collectionAddress: form.elements.collectionAddress.value.trim(), action, value },
    });
    result.textContent = `${res.action}(${JSON.stringify(res.value)}) succeeded: tx ${res.txHash}`;
    result.className = 'good';
    showMessage(`${res.action}(${JSON.stringify(res.value)}) succeeded (tx ${short(res.txHash)}).`);
    // The state the action changed, refreshed.
    const c = currentCollection();
    if (c) await lookupCollection(c.collection.id).catch(() => undefined);
  } catch (err) {
    result.textContent = `${action} failed: ${err.status ? `${err.status}: ` : ''}${err.message}`;
    result.className = 'bad';
    throw err;
  }
}

export function initAdmin() {
  const form = $('#admin-form');
  renderValueInput(form.elements.action.value);
  form.elements.action.addEventListener('change', () => renderValueInput(form.elements.action.value));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(form.querySelector('button[type=submit]'), () => run(form));
  });
  onCollection((c) => {
    if (c?.collection.contract_address) form.elements.collectionAddress.value = c.collection.contract_address;
  });
}
