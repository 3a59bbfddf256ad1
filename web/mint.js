// Mint a token (POST /api/nft/mint), list mints (GET /api/nft/mint) and show each token's artwork
// once generated (token metadata through the admin proxy: GET /api/nft/metadata?type=token).
import { api } from './api.js';
import { $, busy, h, short, showMessage } from './dom.js';
import { onCollection } from './collections.js';

const POLL_MS = 2000;
const POLL_LIMIT_MS = 10 * 60 * 1000;

/** Per collection id: tokenId → {image, name} once the artwork is known. */
const artwork = new Map();
let pollTimer;
let pollStarted = 0;

function collectionId() {
  return $('#mint-form').elements.collectionId.value.trim();
}

function artworkCell(tokenId, known, pending) {
  if (known?.image) {
    return h(
      'figure',
      { class: 'art' },
      h('img', { src: known.image, alt: known.name ?? `token ${tokenId}`, width: 96, height: 96, 'data-token': tokenId }),
      h('figcaption', {}, known.name ?? ''),
    );
  }
  return h('span', { class: 'muted' }, pending ?? 'generating…');
}

async function tokenArtwork(collection, tokenId) {
  const res = await api('GET', '/api/nft/metadata', {
    query: { chainId: collection.chain_id, address: collection.contract_address, type: 'token', tokenId },
  });
  if (!res.metadata) return { pending: `metadata unavailable: ${res.metadataError ?? 'unknown'}` };
  // `image` is "" until the artwork completes (docs/minting.md).
  return res.metadata.image ? { image: res.metadata.image, name: res.metadata.name } : {};
}

/** Loads the mint list; fetches artwork for tokens that have none yet. Answers true when some are still pending. */
export async function loadMints() {
  const id = collectionId();
  const tbody = $('#mints tbody');
  if (!id) {
    tbody.replaceChildren();
    return false;
  }
  const [{ mints }, { collection }] = await Promise.all([
    api('GET', '/api/nft/mint', { query: { collectionId: id } }),
    api('GET', '/api/nft/collections/lookup', { query: { collectionId: id } }),
  ]);
  if (!artwork.has(id)) artwork.set(id, new Map());
  const known = artwork.get(id);
  const notes = new Map();
  if (collection.contract_address) {
    await Promise.all(
      mints
        .filter((m) => !known.get(String(m.token_id))?.image)
        .map(async (m) => {
          const a = await tokenArtwork(collection, m.token_id).catch((err) => ({ pending: err.message }));
          if (a.image) known.set(String(m.token_id), a);
          else if (a.pending) notes.set(String(m.token_id), a.pending);
        }),
    );
  }
  tbody.replaceChildren(
    ...mints.map((m) =>
      h(
        'tr',
        { 'data-token-row': m.token_id },
        h('td', {}, `#${m.token_id}`),
        h('td', {}, h('code', { title: m.mint_recipient }, short(m.mint_recipient))),
        h('td', {}, h('code', { title: m.mint_tx_hash }, short(m.mint_tx_hash))),
        h('td', {}, m.mint_status ?? '—'),
        h('td', {}, m.minted_at ? new Date(m.minted_at).toLocaleString() : '—'),
        h('td', {}, artworkCell(m.token_id, known.get(String(m.token_id)), notes.get(String(m.token_id)))),
      ),
    ),
  );
  if (mints.length === 0) tbody.append(h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No tokens minted yet.')));
  return mints.some((m) => !known.get(String(m.token_id))?.image);
}

/** Polls the list while artwork is pending (every 2 s, for at most 10 minutes). */
function poll(restart = false) {
  clearTimeout(pollTimer);
  if (restart) pollStarted = Date.now();
  loadMints()
    .then((pending) => {
      if (pending && Date.now() - pollStarted < POLL_LIMIT_MS) pollTimer = setTimeout(poll, POLL_MS);
    })
    .catch(() => undefined); // polling stays quiet; the Refresh button shows errors
}

async function mint(form) {
  const f = form.elements;
  let variables;
  try {
    variables = JSON.parse(f.variables.value.trim() || '{}');
  } catch (err) {
    throw new Error(`variables: ${err.message}`);
  }
  const res = await api('POST', '/api/nft/mint', {
    body: { collectionId: f.collectionId.value.trim(), recipient: f.recipient.value.trim(), variables },
  });
  showMessage(`Minted token #${res.mint.tokenId} (tx ${short(res.mint.txHash)}); artwork is generating.`);
  poll(true);
}

export function initMint() {
  const form = $('#mint-form');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(form.querySelector('button[type=submit]'), () => mint(form));
  });
  $('#mints-refresh').addEventListener('click', (e) =>
    busy(e.currentTarget, async () => {
      if (await loadMints()) poll(true);
    }),
  );
  onCollection((c) => {
    if (!c) return;
    if (form.elements.collectionId.value.trim() !== c.collection.id) {
      form.elements.collectionId.value = c.collection.id;
      $('#mints tbody').replaceChildren();
    }
    if (c.collection.contract_address) poll(true);
  });
}
