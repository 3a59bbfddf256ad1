// #/collections/<id>/tokens/<tokenId> — one token: the full image, its traits with their rarity,
// owner, generation (live while it runs), the ERC-721 document its tokenURI serves, its transfer
// history and its transactions.
import { api } from '../api.js';
import { STATUS_TONE, art, badge, card, empty, errorText, h, hex, kv, pct, when } from '../dom.js';
import { jobProgress } from '../live/job-progress.js';

function traitsTable(traits, rarity) {
  if (traits.length === 0) return h('p', { class: 'muted' }, 'No traits.');
  const share = (t) => rarity.traits.find((r) => r.trait_type === t.trait_type)?.values.find((v) => v.value === String(t.value));
  return h(
    'table',
    { class: 'table stacks', id: 'token-traits' },
    h(
      'thead',
      {},
      h('tr', {}, h('th', { scope: 'col' }, 'Trait'), h('th', { scope: 'col' }, 'Value'), h('th', { scope: 'col' }, 'Rarity')),
    ),
    h(
      'tbody',
      {},
      traits.map((t) => {
        const r = share(t);
        return h(
          'tr',
          { 'data-trait': t.trait_type },
          h('td', { class: 'muted', 'data-label': 'Trait' }, t.trait_type),
          h('td', { 'data-label': 'Value' }, String(t.value)),
          h('td', { 'data-label': 'Rarity' }, r ? `${pct(r.share)} (${r.count} of ${rarity.minted})` : '—'),
        );
      }),
    ),
  );
}

function transfersTable(transfers) {
  if (transfers.length === 0) return h('p', { class: 'muted' }, 'No transfer indexed yet.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table stacks', id: 'token-transfers' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Event', 'From', 'To', 'Transaction', 'Block', 'Time'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        transfers.map((e) =>
          h(
            'tr',
            { 'data-tx': e.tx_hash },
            h('td', { 'data-label': 'Event' }, badge(e.kind, e.kind === 'mint' ? 'info' : 'neutral')),
            h('td', { 'data-label': 'From' }, hex(e.from)),
            h('td', { 'data-label': 'To' }, hex(e.to)),
            h('td', { 'data-label': 'Transaction' }, hex(e.tx_hash)),
            h('td', { class: 'num', 'data-label': 'Block' }, String(e.block_number)),
            h('td', { class: 'muted', 'data-label': 'Time' }, when(e.timestamp)),
          ),
        ),
      ),
    ),
  );
}

function transactionsTable(txs) {
  if (txs.length === 0) return h('p', { class: 'muted' }, 'No transaction recorded.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table stacks', id: 'token-transactions' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Kind', 'Transaction', 'Status', 'Time'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        txs.map((t) =>
          h(
            'tr',
            {},
            h('td', { 'data-label': 'Kind' }, t.kind),
            h('td', { 'data-label': 'Transaction' }, hex(t.tx_hash)),
            h('td', { 'data-label': 'Status' }, badge(t.status, STATUS_TONE[t.status] ?? 'neutral')),
            h('td', { class: 'muted', 'data-label': 'Time' }, when(t.created_at)),
          ),
        ),
      ),
    ),
  );
}

export async function tokenPage({ id, tokenId }) {
  const page = h('div', { class: 'page' });
  const crumbs = h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/collections' }, 'Collections'));
  let token;
  let collection;
  let rarity;
  try {
    [token, { collection }, rarity] = await Promise.all([
      api('GET', '/api/nft/token', { query: { collectionId: id, tokenId } }),
      api('GET', '/api/nft/collections/lookup', { query: { collectionId: id } }),
      api('GET', '/api/nft/collections/rarity', { query: { collectionId: id } }),
    ]);
  } catch (err) {
    page.append(crumbs, h('h1', {}, `Token #${tokenId}`), h('p', { class: 'banner bad', role: 'alert', id: 'page-error' }, errorText(err)));
    return { el: page, title: `Token #${tokenId}` };
  }
  crumbs.append(
    h('a', { href: `#/collections/${id}` }, collection.title),
    h('a', { href: `#/collections/${id}/tokens` }, 'Tokens'),
    h('span', {}, `#${token.token_id}`),
  );

  const imageBox = h('div', { class: 'token-image', id: 'token-image' });
  const showArt = (t) => {
    // Until the artwork is ready, the document's image is the collection cover: shown as such.
    const pending = !t.image && t.metadata?.image;
    imageBox.replaceChildren(
      art(t.image ?? t.metadata?.image ?? null, t.metadata?.name ?? `token ${t.token_id}`, {
        class: 'full',
        placeholder: 'no image yet',
        img: t.image ? { 'data-token-image': t.token_id } : {},
      }),
    );
    if (pending) imageBox.append(h('p', { class: 'hint' }, 'The collection cover, shown until the artwork is ready.'));
  };
  showArt(token);
  const g = token.generation;
  let progress;
  const generation = h('div', { id: 'token-generation' });
  if (g.state === 'completed') generation.append(badge('completed', 'good', { 'data-field': 'job-state' }));
  else if (g.job_id) {
    progress = jobProgress(
      g.job_id,
      { state: g.state, progress: g.progress },
      {
        async onCompleted() {
          const t = await api('GET', '/api/nft/token', { query: { collectionId: id, tokenId } }).catch(() => null);
          if (t) showArt(t);
        },
      },
    );
    generation.append(progress.el);
  } else generation.append(badge(g.state, STATUS_TONE[g.state] ?? 'neutral'));

  const name = token.metadata?.name ?? `${collection.title} #${token.token_id}`;
  page.append(
    crumbs,
    h(
      'div',
      { class: 'token-layout' },
      imageBox,
      h(
        'div',
        { class: 'stack' },
        h('h1', { 'data-field': 'token-name' }, name),
        token.metadata?.description ? h('p', { class: 'muted' }, token.metadata.description) : null,
        card(
          'Token',
          kv([
            ['Owner', hex(token.owner), 'owner'],
            ['Minted to', hex(token.mint_recipient ?? token.recipient)],
            ['Minted', when(token.minted_at)],
            ['Mint tx', hex(token.mint_tx_hash ?? token.tx_hash)],
            ['Artwork', generation],
            ['Metadata URI', token.metadata_uri ? h('code', { class: 'wrap' }, token.metadata_uri) : '—'],
          ]),
        ),
        card('Traits', traitsTable(token.traits, rarity)),
      ),
    ),
    card('Transfers', transfersTable(token.transfers)),
    card('Transactions', transactionsTable(token.transactions)),
    card(
      'ERC-721 metadata',
      token.metadata
        ? h('pre', { class: 'json', id: 'token-metadata', tabindex: 0 }, JSON.stringify(token.metadata, null, 2))
        : empty('The metadata document could not be read.'),
    ),
  );
  return { el: page, title: name, dispose: () => progress?.dispose() };
}
