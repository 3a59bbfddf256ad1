// Contract tab: the contract's state and its admin actions (POST /api/nft/admin), each with an
// input typed for it. The outcome of a run is written next to the button (cleared when the next
// run starts), and the state is read again from the chain after a success.
import { readAddress } from '../address.js';
import { api } from '../api.js';
import { act, badge, card, empty, feedback, field, h, hex, kv, say } from '../dom.js';
import { royaltyText } from './overview.js';
import { signWithWallet } from './sale.js';

const ADDRESS = { placeholder: '0x…', class: 'address', autocomplete: 'off' };

/** action → label, how its value is entered, and how it is sent. */
const ACTIONS = {
  setMintActive: {
    label: 'Pause or resume minting',
    input: (chain) =>
      h(
        'select',
        { name: 'value' },
        h('option', { value: 'true', selected: chain && !chain.mintActive }, 'active (resume)'),
        h('option', { value: 'false', selected: chain?.mintActive }, 'paused'),
      ),
    read: (v) => v === 'true',
  },
  setMaxSupply: {
    label: 'Change the max supply',
    input: (chain) => h('input', { name: 'value', inputmode: 'numeric', placeholder: chain?.maxSupply ?? '1000' }),
    read: (v) => {
      if (!/^\d+$/.test(v.trim())) throw new Error('max supply: a whole number');
      return v.trim();
    },
  },
  setMinter: {
    label: 'Change the minter',
    input: () => h('input', { name: 'value', ...ADDRESS }),
    read: (v) => readAddress('new minter', v),
  },
  transferOwnership: {
    label: 'Transfer ownership',
    input: () => h('input', { name: 'value', ...ADDRESS }),
    read: (v) => readAddress('new owner', v),
  },
  setBaseURI: {
    label: 'Change the token base URI',
    input: () => h('input', { name: 'value', type: 'url', placeholder: 'https://…/' }),
    read: (v) => v.trim(),
  },
  setContractURI: {
    label: 'Change the contract URI',
    input: () => h('input', { name: 'value', type: 'url', placeholder: 'https://…' }),
    read: (v) => v.trim(),
  },
  // No argument: the box confirms an irreversible change (diamondCut is removed for good).
  freezeUpgrades: {
    label: 'Freeze upgrades (irreversible)',
    input: () =>
      h(
        'label',
        { class: 'check' },
        h('input', { type: 'checkbox', name: 'value' }),
        'I understand: the contract can never be upgraded again',
      ),
    read: (_v, form) => {
      if (!form.elements.value.checked) throw new Error('freeze upgrades: tick the box to confirm');
      return true;
    },
  },
  freezeMetadata: {
    label: 'Freeze metadata (irreversible)',
    input: () =>
      h(
        'label',
        { class: 'check' },
        h('input', { type: 'checkbox', name: 'value' }),
        'I understand: the base URI and contract URI can never change again',
      ),
    read: (_v, form) => {
      if (!form.elements.value.checked) throw new Error('freeze metadata: tick the box to confirm');
      return true;
    },
  },
};

function stateCard(chain, c) {
  if (!chain) return card('Contract state', h('p', { class: 'muted' }, 'The contract did not answer.'));
  return card(
    'Contract state',
    kv(
      [
        ['Chain', c.chain_name, 'state-chain'],
        ['Mint', badge(chain.mintActive ? 'active' : 'paused', chain.mintActive ? 'good' : 'warn'), 'state-mint'],
        ['Supply', `${chain.totalSupply} / ${chain.maxSupply}`, 'state-supply'],
        ['Owner', hex(chain.owner), 'state-owner'],
        ['Minter', hex(chain.minter), 'state-minter'],
        ['Royalties', royaltyText(chain.royalty)],
      ],
      { id: 'contract-state' },
    ),
  );
}

function resetCard(ctx) {
  const line = feedback({ id: 'reset-feedback' });
  const button = h('button', { type: 'button', class: 'danger' }, 'Reset to draft');
  button.addEventListener('click', () =>
    act(button, line, async () => {
      await api('POST', '/api/nft/collections/reset', { body: { collectionId: ctx.id } });
      await ctx.reload();
      return 'Reset: the collection is a draft again.';
    }),
  );
  return card(
    'Reset',
    h(
      'p',
      { class: 'hint' },
      'Only when the contract is gone (a dev chain reset): the record returns to draft and forgets its tokens. Refused while the contract exists.',
    ),
    h('div', { class: 'actions' }, button, line),
  );
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * "Make permanent" (docs/permanence.md "Freezing"): exports the collection (POST …/export), waits
 * until the bundle is ready, then freezes the contract at it (POST …/freeze). A creator-owned
 * contract answers with the calls (409 OWNER_MUST_SIGN): they are shown and sent from the
 * owner's browser wallet, in order, and "Record the freeze" asks again once they are mined.
 */
function permanentCard(ctx) {
  const line = feedback({ id: 'permanent-feedback' });
  const callsBox = h('div', { id: 'permanent-owner-calls', hidden: true });
  const confirm = h('input', { type: 'checkbox', name: 'permanent-confirm' });
  const button = h('button', { type: 'button', id: 'make-permanent' }, 'Make permanent');
  const body = { collectionId: ctx.id };

  async function freeze() {
    try {
      const f = await api('POST', '/api/nft/collections/freeze', { body });
      callsBox.hidden = true;
      return `Frozen for good at ipfs://${f.root_cid}/ (tx ${f.tx_hash ?? 'sent by the owner'}).`;
    } catch (err) {
      if (err.body?.code === 'OWNER_MUST_SIGN' && Array.isArray(err.body.calls)) {
        showCalls(err.body);
        return `The owner signs these: see the ${err.body.calls.length} transactions below.`;
      }
      throw err;
    }
  }

  function showCalls(answer) {
    const send = h('button', { type: 'button', id: 'permanent-sign' }, `Sign the ${answer.calls.length} with my wallet`);
    const record = h('button', { type: 'button', id: 'permanent-record' }, 'Record the freeze');
    const sent = feedback({ id: 'permanent-sign-feedback' });
    send.addEventListener('click', () =>
      act(
        send,
        sent,
        async () => {
          const hashes = [];
          // In order, from one account: the wallet's nonces keep them in this order on chain.
          for (const call of answer.calls) hashes.push(await signWithWallet(call));
          return `Sent: ${hashes.join(', ')}. Once they are mined, press "Record the freeze".`;
        },
        { working: 'Waiting for the wallet…' },
      ),
    );
    record.addEventListener('click', () => act(record, sent, freeze, { working: 'Reading the contract…' }));
    callsBox.replaceChildren(
      h('p', {}, `This contract is owned by ${answer.owner}: the owner sends these ${answer.calls.length} calls, in this order.`),
      ...answer.calls.map((call, i) =>
        kv([
          ['Step', `${i + 1}. ${call.function}`],
          ['What', call.description],
          ['To', hex(call.to)],
          ['Data', h('code', { class: 'wrap', 'data-field': 'call-data' }, call.data)],
        ]),
      ),
      h('div', { class: 'actions' }, send, record),
      sent,
    );
    callsBox.hidden = false;
  }

  button.addEventListener('click', () =>
    act(
      button,
      line,
      async () => {
        if (!confirm.checked) throw new Error('make permanent: tick the box to confirm');
        say(line, 'Exporting the collection…', 'muted');
        let exp = await api('POST', '/api/nft/collections/export', { body });
        while (exp.status === 'building') {
          await sleep(1000);
          exp = await api('GET', '/api/nft/collections/export', { query: body });
        }
        if (exp.status !== 'ready') throw new Error(`the export failed: ${exp.error ?? exp.status}`);
        say(line, `Bundle ready (${exp.root_cid}); freezing the contract…`, 'muted');
        return freeze();
      },
      { working: 'Starting…' },
    ),
  );
  return card(
    'Make permanent',
    h(
      'p',
      { class: 'hint' },
      'Once the sale is closed: exports every image, document and receipt as one IPFS bundle, points the contract at it (ipfs://…) and freezes its metadata. Irreversible.',
    ),
    h('label', { class: 'check' }, confirm, 'I understand: it is irreversible'),
    h('div', { class: 'actions' }, button, line),
    callsBox,
  );
}

export function adminPanel(ctx) {
  if (!ctx.collection.contract_address)
    return {
      el: empty(
        'Deploy the collection first: its contract is managed here.',
        h('a', { href: `#/collections/${ctx.id}`, class: 'button' }, 'Go to the overview'),
      ),
    };

  let state = stateCard(ctx.overview.chain, ctx.collection);
  const select = h(
    'select',
    { name: 'action' },
    Object.entries(ACTIONS).map(([name, a]) => h('option', { value: name }, `${a.label} (${name})`)),
  );
  const valueBox = h('div', { id: 'admin-value' });
  const renderValue = () => valueBox.replaceChildren(field('Value', ACTIONS[select.value].input(ctx.overview.chain)));
  select.addEventListener('change', renderValue);
  renderValue();
  const line = feedback({ id: 'admin-result' });
  const submit = h('button', { type: 'submit' }, 'Run action');
  const form = h(
    'form',
    { id: 'admin-form', class: 'stack', novalidate: true },
    field('Action', select),
    valueBox,
    h('div', { class: 'actions' }, submit, line),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(
      submit,
      line,
      async () => {
        const action = select.value;
        const value = ACTIONS[action].read(form.elements.value.value ?? '', form);
        const c = ctx.collection;
        const res = await api('POST', '/api/nft/admin', {
          body: { chainId: c.chain_id, collectionAddress: c.contract_address, action, value },
        });
        // The state the action changed, read again.
        const overview = await ctx.reload();
        const next = stateCard(overview.chain, overview.collection);
        state.replaceWith(next);
        state = next;
        renderValue();
        return `${res.action}(${JSON.stringify(res.value)}) succeeded: tx ${res.txHash}`;
      },
      // A refusal below the minted supply is explained with the contract's count.
      { working: 'Sending the transaction…', context: () => ({ minted: ctx.overview.chain?.totalSupply }) },
    );
  });

  const el = h('div', { class: 'panel-grid' }, card('Admin action', form), state, permanentCard(ctx), resetCard(ctx));
  return { el };
}
