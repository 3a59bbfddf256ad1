// The public mint page (docs/mint-page.md): /mint/<collectionId>, or ?embed=1 for the compact
// widget. Reads the page's public JSON, polls it for the newest mints, and buys through the
// collector's own wallet: purchase(to, quantity, proof, data) on the collection's contract.
import {
  choicesData,
  DECIMALS_SELECTOR,
  decodeSymbol,
  decodeUint,
  encodeAllowance,
  encodeApprove,
  encodePurchase,
  formatUnits,
  mintedTokenIds,
  SYMBOL_SELECTOR,
} from './abi.js';
import { discoverWallets, walletClient } from './wallet.js';

const REFRESH_MS = 4000;
const id = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] ?? '');
const embed = new URLSearchParams(location.search).get('embed') === '1';
const root = document.getElementById('mint');
if (embed) document.body.classList.add('embed');

/** h('div', {class: 'x'}, child, ...): elements with text only (never HTML from data). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

async function getJson(url) {
  const res = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'omit' });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error ?? `${url}: HTTP ${res.status}`);
  return body.data ?? body;
}

const short = (a) => (a ? `${a.slice(0, 6)}…${a.slice(-4)}` : '');

/** An ERC-20 sale's token as read through the wallet: {address, decimals, symbol}; null until read. */
let token = null;

/** An amount of the sale's currency (native: 18 decimals, ETH; ERC-20: the token's decimals and symbol). */
function amountText(sale, amount) {
  if (sale.currency === 'native') return `${formatUnits(amount, 18)} ETH`;
  if (token && token.address === sale.currency.toLowerCase()) return `${formatUnits(amount, token.decimals)} ${token.symbol}`;
  return `${amount} units of ${short(sale.currency)}`;
}

function priceText(sale) {
  if (!sale) return '—';
  if (BigInt(sale.price) === 0n) return 'Free';
  return amountText(sale, BigInt(sale.price));
}

/**
 * decimals() and symbol() of the sale's ERC-20 through the wallet's eth_call (the page itself
 * reads only its own backend: connect-src 'self'). Then the price is shown in the token's units.
 */
async function readToken(wallet, address) {
  const call = (data) => wallet.request('eth_call', [{ to: address, data }, 'latest']);
  const [d, s] = await Promise.all([call(DECIMALS_SELECTOR), call(SYMBOL_SELECTOR)]);
  const decimals = Number(decodeUint(d));
  if (!Number.isInteger(decimals) || decimals > 77) throw new Error(`the token says it has ${decimals} decimals`);
  token = { address: address.toLowerCase(), decimals, symbol: decodeSymbol(s) || short(address) };
  const price = document.getElementById('price');
  if (price && state.sale) price.textContent = priceText(state.sale);
  return token;
}

function remaining(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const parts = [d ? `${d}d` : '', `${Math.floor((s % 86400) / 3600)}h`, `${Math.floor((s % 3600) / 60)}m`, `${s % 60}s`];
  return parts.filter(Boolean).join(' ');
}

/** The window's state now: [open?, text]. */
function windowState(sale, now = Date.now()) {
  if (!sale) return [false, 'Sale not open'];
  if (sale.paused) return [false, 'Sale paused'];
  const start = sale.start ? Date.parse(sale.start) : null;
  const end = sale.end ? Date.parse(sale.end) : null;
  if (start !== null && now < start) return [false, `Opens in ${remaining(start - now)}`];
  if (end !== null && now >= end) return [false, 'Sale closed'];
  return [true, end !== null ? `Open · closes in ${remaining(end - now)}` : 'Open now'];
}

function tile(t) {
  const img = t.image
    ? h('img', { src: t.image, alt: `Token #${t.token_id}`, loading: 'lazy', 'data-token': t.token_id })
    : h('div', { class: 'pending', 'data-token': t.token_id }, 'Generating…');
  return h(
    'figure',
    { class: 'tile' },
    img,
    h('p', {}, `#${t.token_id}`, t.owner ? h('span', { class: 'muted' }, ` · ${short(t.owner)}`) : ''),
  );
}

let state;
/** A purchase in progress: the countdown leaves the button alone. */
let busy = false;
/** Why the connected wallet cannot mint (not on the allowlist): the button stays disabled. */
let blocked = null;

/** Whether `account` may buy; sets `blocked` (and says why) when it may not. Returns the proof. */
async function checkAllowlist(account) {
  const a = await getJson(`/nft/collections/${id}/allowlist-proof?address=${account}`);
  if (a.allowed) {
    blocked = null;
    return a.proof;
  }
  blocked = /is not on the allowlist/.test(a.reason ?? '')
    ? `You cannot mint: this sale is only for wallets on its allowlist, and ${short(account)} is not on it.`
    : `You cannot mint with ${short(account)}: ${a.reason}.`;
  setStatus(blocked, 'bad');
  const button = document.getElementById('mint-button');
  if (button) button.disabled = true;
  return null;
}

function renderGallery() {
  const g = document.getElementById('gallery');
  if (!g) return;
  const items = state.latest_mints;
  g.replaceChildren(...(items.length ? items.map(tile) : [h('p', { class: 'muted' }, 'No mints yet. Be the first.')]));
}

function renderSupply() {
  const el = document.getElementById('supply');
  if (el) el.textContent = `${state.minted} / ${state.max_supply}`;
  const bar = document.getElementById('supply-bar');
  if (bar) bar.value = state.max_supply ? state.minted / state.max_supply : 0;
}

function fairnessCard() {
  const f = state.fairness;
  const verify = state.contract_address ? `npx atelier verify --rpc <url> ${state.chain_id}:${state.contract_address}` : null;
  return h(
    'section',
    { class: 'card', id: 'fairness' },
    h('h2', {}, 'Fair seeds'),
    f.committed
      ? h(
          'p',
          {},
          'Seed committed on chain before any mint: ',
          h('code', { id: 'commitment' }, f.commitment),
          '. ',
          f.revealed
            ? h('span', { id: 'reveal-status' }, 'Revealed: every seed can be recomputed now.')
            : h('span', { id: 'reveal-status' }, 'Not revealed yet (at sell-out).'),
        )
      : h('p', { id: 'reveal-status', class: 'muted' }, 'No seed commitment yet: the sale opens only over one.'),
    verify ? h('p', { class: 'muted' }, 'Verify every token from public data:', h('pre', { id: 'verify-hint' }, verify)) : null,
  );
}

function choiceField(c) {
  if (c.kind === 'preset') {
    return h(
      'label',
      {},
      c.display_name,
      h(
        'select',
        { name: c.name, 'data-choice': c.name },
        h('option', { value: '' }, 'Surprise me (platform picks)'),
        c.presets.map((p) => h('option', { value: p.value }, p.display_name)),
      ),
    );
  }
  return h(
    'label',
    {},
    c.display_name,
    h('input', { name: c.name, 'data-choice': c.name, maxlength: 200, placeholder: 'your own value (optional)' }),
  );
}

function setStatus(text, tone = '') {
  const el = document.getElementById('mint-status');
  el.className = `status ${tone}`;
  el.textContent = text;
}

/** Follows each token's public document until it has an image, then shows it. */
async function followTokens(tokenIds) {
  const out = document.getElementById('minted');
  const pending = new Map(
    tokenIds.map((t) => [t, h('figure', { class: 'tile' }, h('div', { class: 'pending' }, 'Generating…'), h('p', {}, `#${t}`))]),
  );
  out.replaceChildren(...pending.values());
  const end = Date.now() + 10 * 60_000;
  while (pending.size > 0 && Date.now() < end) {
    for (const [tokenId, el] of [...pending]) {
      // no-cache: a pending document is cached 10 s; revalidate (If-None-Match) on every look
      // (404 for a few seconds: the token is recorded once the purchase follower sees it)
      const doc = await fetch(`/nft/metadata/${id}/${tokenId}`, { credentials: 'omit', cache: 'no-cache' })
        .then((r) => (r.ok ? r.json() : null))
        .catch(() => null);
      if (doc && typeof doc.image === 'string' && doc.image !== '') {
        const shown = h(
          'figure',
          { class: 'tile', id: `minted-${tokenId}` },
          h('img', { src: doc.image, alt: doc.name ?? `Token #${tokenId}`, 'data-minted-token': tokenId }),
          h(
            'p',
            {},
            doc.name ?? `#${tokenId}`,
            ' · ',
            h('a', { href: `/collections/${id}/tokens/${tokenId}/receipt`, target: '_blank', rel: 'noopener' }, 'receipt'),
          ),
        );
        el.replaceWith(shown);
        pending.delete(tokenId);
      }
    }
    if (pending.size) await new Promise((r) => setTimeout(r, 1500));
  }
  setStatus(
    pending.size ? 'Still generating; your tokens will appear in the gallery.' : `Minted ${tokenIds.map((t) => `#${t}`).join(', ')}.`,
    'good',
  );
}

async function mint(form, button) {
  const sale = state.sale;
  busy = true;
  button.disabled = true;
  try {
    const max = sale.max_per_wallet ?? 10;
    const raw = form.elements.quantity.value.trim() || '1';
    if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw new Error(`Quantity: a whole number from 1 to ${max}.`);
    const quantity = BigInt(raw);
    setStatus('Looking for a wallet…');
    const wallets = await discoverWallets();
    if (wallets.length === 0) throw new Error('No wallet found: install a browser wallet (any EIP-6963 wallet) and reload.');
    const chosen = wallets[0];
    const wallet = walletClient(chosen.provider);
    setStatus(`Connecting ${chosen.info.name}…`);
    const account = await wallet.connect();
    await wallet.ensureChain(state.chain_id);
    let proof = [];
    if (sale.merkle_root) {
      proof = await checkAllowlist(account);
      if (proof === null) return;
    }
    const choices = {};
    for (const el of form.querySelectorAll('[data-choice]')) choices[el.name] = el.value;
    const total = BigInt(sale.price) * quantity;
    const contract = state.contract_address;
    if (sale.currency !== 'native' && total > 0n) {
      if (!token) await readToken(wallet, sale.currency);
      // approve only what is missing: a wallet that already allowed enough goes straight to purchase
      const allowance = decodeUint(
        await wallet.request('eth_call', [{ to: sale.currency, data: encodeAllowance(account, contract) }, 'latest']),
      );
      if (allowance < total) {
        setStatus(`Approve ${amountText(sale, total)} in your wallet…`);
        const approval = await wallet.send({ from: account, to: sale.currency, data: encodeApprove(contract, total) });
        const ar = await wallet.receipt(approval);
        if (ar.status !== '0x1') throw new Error(`the approval failed (tx ${approval})`);
      }
    }
    setStatus('Confirm the purchase in your wallet…');
    const tx = { from: account, to: contract, data: encodePurchase(account, quantity, proof, choicesData(choices)) };
    if (sale.currency === 'native') tx.value = `0x${total.toString(16)}`;
    const hash = await wallet.send(tx);
    setStatus(`Sent ${short(hash)}; waiting for the chain…`);
    const receipt = await wallet.receipt(hash);
    if (receipt.status !== '0x1') throw new Error(`the purchase reverted (tx ${hash})`);
    const tokenIds = mintedTokenIds(receipt, contract);
    setStatus(`Minted ${tokenIds.map((t) => `#${t}`).join(', ')}; generating the artwork…`, 'good');
    await followTokens(tokenIds);
  } catch (err) {
    setStatus(err?.message ?? String(err), 'bad');
  } finally {
    busy = false;
    button.disabled = blocked !== null;
  }
}

function buyCard() {
  const sale = state.sale;
  const button = h('button', { type: 'submit', id: 'mint-button' }, 'Mint');
  const max = sale?.max_per_wallet ?? 10;
  const form = h(
    'form',
    { class: 'buy', id: 'buy-form', novalidate: true },
    state.choices.map(choiceField),
    h('label', {}, 'Quantity', h('input', { name: 'quantity', type: 'number', min: 1, max, value: 1, inputmode: 'numeric' })),
    h('div', { class: 'row' }, button, h('span', { id: 'window', class: 'countdown muted' })),
    h('p', { id: 'mint-status', class: 'status', role: 'status' }),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    mint(form, button);
  });
  const tick = () => {
    const [open, text] = windowState(state.sale);
    document.getElementById('window').textContent = state.sale ? text : (state.sale_error ?? 'Sale not open');
    if (!busy) button.disabled = !open || !state.contract_address || blocked !== null;
  };
  setTimeout(tick);
  setInterval(tick, 1000);
  return h('section', { class: 'card' }, form, h('div', { id: 'minted', class: 'minted' }));
}

function allowlistCard() {
  if (!state.sale?.merkle_root) return null;
  const input = h('input', { name: 'address', placeholder: '0x… your wallet', 'aria-label': 'Wallet address' });
  const line = h('p', { class: 'status', id: 'allowlist-status' });
  const form = h(
    'form',
    { class: 'row', id: 'allowlist-form', novalidate: true },
    input,
    h('button', { type: 'submit', class: 'ghost' }, 'Check'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const a = await getJson(`/nft/collections/${id}/allowlist-proof?address=${encodeURIComponent(input.value.trim())}`);
      line.className = `status ${a.allowed ? 'good' : 'bad'}`;
      line.textContent = a.allowed ? 'On the allowlist: you can mint.' : a.reason;
    } catch (err) {
      line.className = 'status bad';
      line.textContent = err.message;
    }
  });
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, 'Allowlist'),
    h('p', { class: 'muted' }, 'This sale is for listed wallets only.'),
    form,
    line,
  );
}

function render() {
  const s = state;
  document.title = `${s.title} · Mint`;
  const cover = s.cover_image_url
    ? h('img', { class: 'cover', src: s.cover_image_url, alt: s.title })
    : h('div', { class: 'cover placeholder', 'aria-hidden': 'true' }, s.title.slice(0, 1).toUpperCase());
  const stats = h(
    'div',
    { class: 'stats' },
    h('div', { class: 'stat' }, h('b', { id: 'price' }, priceText(s.sale)), h('span', {}, 'price per token')),
    h('div', { class: 'stat' }, h('b', { id: 'supply' }), h('span', {}, 'minted')),
  );
  const info = h(
    'div',
    {},
    h('h1', { id: 'title' }, s.title),
    embed ? null : h('p', { class: 'description', id: 'description' }, s.description),
    stats,
    h('progress', { id: 'supply-bar', class: 'supply', max: 1, value: 0 }),
    s.contract_address
      ? h('p', { class: 'muted' }, 'Contract ', h('span', { class: 'hex', id: 'contract' }, s.contract_address), ` on chain ${s.chain_id}`)
      : null,
    embed ? h('p', {}, h('a', { href: `/mint/${id}`, target: '_blank', rel: 'noopener' }, 'Open the full page')) : null,
  );
  const parts = [
    h('div', { class: 'hero' }, cover, info),
    buyCard(),
    embed ? null : allowlistCard(),
    embed ? null : fairnessCard(),
    embed ? null : h('section', {}, h('h2', {}, 'Latest mints'), h('div', { class: 'gallery', id: 'gallery' })),
  ];
  root.replaceChildren(...parts.filter(Boolean));
  renderSupply();
  renderGallery();
}

async function refresh() {
  try {
    state = { ...state, ...(await getJson(`/nft/collections/${id}/mint-page`)) };
    renderSupply();
    renderGallery();
  } catch {
    /* keep the last state; the next poll tries again */
  }
}

async function start() {
  try {
    state = await getJson(`/nft/collections/${id}/mint-page`);
  } catch (err) {
    root.replaceChildren(h('p', { class: 'status bad', role: 'alert' }, err.message));
    return;
  }
  render();
  setInterval(refresh, REFRESH_MS);
  await lookThroughWallet();
}

/**
 * Before any click, with a wallet already on the collection's chain: the ERC-20's decimals and
 * symbol for the price, and (allowlist sales) whether an account the wallet already shares
 * (eth_accounts: no prompt) may buy. Nothing here asks the wallet for anything.
 */
async function lookThroughWallet() {
  const sale = state.sale;
  if (!sale || (sale.currency === 'native' && !sale.merkle_root)) return;
  try {
    const [chosen] = await discoverWallets();
    if (!chosen) return;
    const wallet = walletClient(chosen.provider);
    const chain = await wallet.request('eth_chainId');
    if (typeof chain !== 'string' || BigInt(chain) !== BigInt(state.chain_id ?? -1)) return;
    if (sale.currency !== 'native') await readToken(wallet, sale.currency).catch(() => undefined);
    if (sale.merkle_root) {
      const [account] = await wallet.request('eth_accounts');
      if (typeof account === 'string') await checkAllowlist(account);
    }
  } catch {
    /* the wallet is asked again on Mint */
  }
}

start();
