// Sale tab (owner or operator): the contract's on-chain sale (docs/minting.md "On-chain sale"),
// read back from the chain, and a form that sets it. For a contract the platform wallet owns the
// platform sends setSale; for a creator-owned contract the API answers with the exact call
// (409 OWNER_MUST_SIGN), shown here and sent from the creator's browser wallet (EIP-1193).
import { readAddress } from '../address.js';
import { api } from '../api.js';
import { act, card, empty, errorText, feedback, field, h, hex, kv, say } from '../dom.js';

/** A datetime-local value (the browser's time zone) as ISO 8601, or null when empty. */
const isoOrNull = (label, v) => {
  if (!v.trim()) return null;
  const t = new Date(v);
  if (Number.isNaN(t.getTime())) throw new Error(`${label}: not a date and time`);
  return t.toISOString();
};
const localInput = (iso) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** "0xabc… 7000" per line → [{address, bps}]. */
export function readPayouts(text) {
  const out = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const [addr, bps, extra] = line.split(/[\s,]+/);
    if (extra !== undefined || !/^\d+$/.test(bps ?? ''))
      throw new Error(`payouts, line ${i + 1}: write an address and basis points, e.g. "0xabc… 7000"`);
    out.push({ address: readAddress(`payouts, line ${i + 1}`, addr), bps: Number(bps) });
  }
  return out;
}

function stateView(s) {
  if (!s.configured) return h('p', { class: 'muted', id: 'sale-state' }, 'No sale is set on this contract yet.');
  return kv(
    [
      ['Currency', s.currency === 'native' ? 'native (ETH)' : hex(s.currency)],
      ['Price', `${s.price} (smallest unit)`],
      ['Opens', s.start ?? 'at once'],
      ['Closes', s.end ?? 'never'],
      ['Per wallet', s.max_per_wallet ?? 'no limit'],
      ['Allowlist root', s.merkle_root ?? 'anyone'],
      ['Payouts', s.payouts.map((p) => `${p.address} ${(p.bps / 100).toFixed(2)} %`).join(' · ') || 'none (free)'],
      ['Paused', s.paused ? 'yes' : 'no'],
    ],
    { id: 'sale-state' },
  );
}

/** Sends the call the API gave from the creator's browser wallet, on the collection's chain (also the Contract tab's freeze). */
export async function signWithWallet(call) {
  const eth = window.ethereum;
  if (typeof eth?.request !== 'function')
    throw new Error('no browser wallet found (window.ethereum): send the call above from the owner wallet');
  const [account] = await eth.request({ method: 'eth_requestAccounts' });
  if (!account || account.toLowerCase() !== call.from.toLowerCase()) {
    throw new Error(`the wallet's account is ${account ?? 'none'}; switch it to the contract's owner ${call.from}`);
  }
  const chainHex = `0x${Number(call.chainId).toString(16)}`;
  if ((await eth.request({ method: 'eth_chainId' })) !== chainHex) {
    await eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: chainHex }] });
  }
  return eth.request({ method: 'eth_sendTransaction', params: [{ from: call.from, to: call.to, data: call.data, value: '0x0' }] });
}

export function salePanel(ctx) {
  const c = ctx.collection;
  if (c.is_global) return { el: empty('Built-in tools are not sold.') };
  if (!c.contract_address)
    return {
      el: empty(
        'Deploy the collection before setting its sale.',
        h('a', { href: `#/collections/${ctx.id}`, class: 'button' }, 'Go to the overview'),
      ),
    };

  const stateBox = h('div', {}, h('p', { class: 'muted' }, 'Reading the contract…'));
  const readLine = feedback();
  let timer;
  async function read() {
    const s = await api('GET', '/api/nft/collections/sale', { query: { collectionId: ctx.id } });
    stateBox.replaceChildren(stateView(s));
    return s;
  }

  const callBox = h('div', { id: 'sale-owner-call', hidden: true });
  const line = feedback({ id: 'sale-feedback' });
  const submit = h('button', { type: 'submit' }, 'Set the sale');
  const form = h(
    'form',
    { id: 'sale-form', class: 'stack', novalidate: true },
    h(
      'div',
      { class: 'fields' },
      field('Currency', h('input', { name: 'currency', value: 'native', autocomplete: 'off' }), '"native", or an ERC-20 token address'),
      field('Price', h('input', { name: 'price', inputmode: 'numeric', value: '0' }), "per token, in the currency's smallest unit (wei)"),
      field('Opens', h('input', { name: 'start', type: 'datetime-local' }), 'empty: at once'),
      field('Closes', h('input', { name: 'end', type: 'datetime-local' }), 'empty: never'),
      field('Per wallet', h('input', { name: 'max_per_wallet', type: 'number', min: 1 }), 'empty: no limit'),
      field(
        'Allowlist root',
        h('input', { name: 'merkle_root', placeholder: '0x… (32 bytes)', autocomplete: 'off' }),
        'empty: anyone may buy',
      ),
    ),
    field(
      'Payouts',
      h('textarea', { name: 'payouts', rows: 3, placeholder: '0xabc… 7000\n0xdef… 3000' }),
      'one recipient and basis points per line, summing to 10000',
    ),
    h('div', { class: 'actions' }, submit, line),
    callBox,
  );

  function showOwnerCall(body) {
    const call = body.call;
    const send = h('button', { type: 'button', id: 'sale-sign' }, 'Sign with my wallet');
    const sent = feedback({ id: 'sale-sign-feedback' });
    send.addEventListener('click', () =>
      act(
        send,
        sent,
        async () => {
          const hash = await signWithWallet(call);
          // The chain is the truth: read the sale back until the transaction is mined.
          clearInterval(timer);
          timer = setInterval(
            () =>
              read()
                .then((s) => s.configured && clearInterval(timer))
                .catch(() => undefined),
            2000,
          );
          return `Sent: ${hash}. The state above updates once it is mined.`;
        },
        { working: 'Waiting for the wallet…' },
      ),
    );
    callBox.replaceChildren(
      h('p', {}, `This contract is owned by ${body.owner}: the owner sends setSale. The exact transaction:`),
      kv([
        ['Chain', String(call.chainId)],
        ['From', hex(call.from)],
        ['To', hex(call.to)],
        ['Function', call.function],
        ['Data', h('code', { class: 'wrap', 'data-field': 'call-data' }, call.data)],
      ]),
      h('div', { class: 'actions' }, send, sent),
    );
    callBox.hidden = false;
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    callBox.hidden = true;
    act(
      submit,
      line,
      async () => {
        const f = form.elements;
        const currency = f.currency.value.trim() === 'native' ? 'native' : readAddress('currency', f.currency.value);
        const price = f.price.value.trim();
        if (!/^\d+$/.test(price)) throw new Error('price: a whole number of the smallest unit');
        const per = f.max_per_wallet.value.trim();
        const body = {
          collectionId: ctx.id,
          currency,
          price,
          start: isoOrNull('opens', f.start.value),
          end: isoOrNull('closes', f.end.value),
          max_per_wallet: per ? Number(per) : null,
          merkle_root: f.merkle_root.value.trim() || null,
          payouts: readPayouts(f.payouts.value),
        };
        try {
          const s = await api('PUT', '/api/nft/collections/sale', { body });
          stateBox.replaceChildren(stateView(s));
          return `Set by the platform wallet (${s.tx_hash}).`;
        } catch (err) {
          if (err.body?.code === 'OWNER_MUST_SIGN' && err.body.call) {
            showOwnerCall(err.body);
            return 'The owner signs this one: see the transaction below.';
          }
          throw err;
        }
      },
      { working: 'Setting the sale…' },
    );
  });

  read()
    .then((s) => {
      if (!s.configured) return;
      const f = form.elements;
      f.currency.value = s.currency;
      f.price.value = s.price;
      f.start.value = localInput(s.start);
      f.end.value = localInput(s.end);
      f.max_per_wallet.value = s.max_per_wallet ?? '';
      f.merkle_root.value = s.merkle_root ?? '';
      f.payouts.value = s.payouts.map((p) => `${p.address} ${p.bps}`).join('\n');
    })
    .catch((err) => {
      stateBox.replaceChildren();
      say(readLine, errorText(err), 'bad');
    });

  const el = h(
    'div',
    { class: 'panel-grid' },
    card(
      'On-chain sale',
      h(
        'p',
        { class: 'hint' },
        'Read from the contract. Collectors buy with purchase() from their own wallet; the artwork follows by itself.',
      ),
      stateBox,
      readLine,
    ),
    card('Set the sale', form),
  );
  return { el, dispose: () => clearInterval(timer) };
}
