// Activity tab: the contract's mints and transfers as the indexer recorded them (newest first,
// "More" for older ones), kept live over socket.io: an event re-reads the newest page and the new
// rows appear on top. Beside it, the indexer's state (status, lag, warnings, last error).
import { api } from '../api.js';
import { act, badge, card, empty, errorText, feedback, h, hex, say, when } from '../dom.js';
import { followCollection } from '../live/collection-events.js';
import { indexerDetails } from '../pages/platform.js';

const keyOf = (e) => `${e.tx_hash}:${e.log_index}`;

/** A collector's purchase: who paid, how much for how many, and each payout (smallest units). */
function purchaseLine(p) {
  const unit = p.currency === 'native' ? 'wei' : 'token units';
  const paid = `${p.amount ?? '?'} ${unit} for ${p.quantity ?? '?'} token(s)`;
  const payouts = (p.payouts ?? []).map((x) => `${x.address.slice(0, 8)}… ${x.amount}`).join(', ');
  return h(
    'small',
    { class: 'muted block', 'data-field': 'purchase' },
    `by ${p.buyer.slice(0, 8)}…: ${paid}${payouts ? `; paid out ${payouts}` : ''}`,
  );
}

function eventRow(ctx, e, fresh) {
  return h(
    'tr',
    { 'data-event': keyOf(e), 'data-tx': e.tx_hash, class: fresh ? 'fresh' : undefined },
    h(
      'td',
      {},
      e.purchase
        ? badge('sale', 'good', { title: 'bought on chain by a collector' })
        : badge(e.kind, e.kind === 'mint' ? 'info' : 'neutral'),
      e.purchase ? purchaseLine(e.purchase) : null,
    ),
    h('td', {}, h('a', { href: `#/collections/${ctx.id}/tokens/${e.token_id}` }, `#${e.token_id}`)),
    h('td', {}, hex(e.from)),
    h('td', {}, hex(e.to)),
    h('td', {}, hex(e.tx_hash)),
    h('td', { class: 'num' }, String(e.block_number)),
    h('td', { class: 'muted' }, when(e.timestamp)),
  );
}

export function activityPanel(ctx) {
  const address = ctx.collection.contract_address;
  if (!address) return { el: empty('Activity starts when the collection is deployed.') };

  const seen = new Set();
  const body = h('tbody');
  const table = h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table', id: 'activity' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Event', 'Token', 'From', 'To', 'Transaction', 'Block', 'Time'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      body,
    ),
  );
  const none = empty('No mint or transfer indexed yet.');
  none.hidden = true;
  table.hidden = true;
  const line = feedback();
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Older events');
  const live = h('span', { id: 'live-state', class: 'live' });
  let cursor = null;

  function showState(state, detail) {
    live.dataset.state = state;
    live.textContent = state === 'live' ? 'Live' : state === 'connecting' ? 'Connecting…' : `Offline${detail ? `: ${detail}` : ''}`;
  }

  async function loadNewest() {
    const res = await api('GET', '/api/nft/collections/activity', { query: { collectionId: ctx.id, limit: 50 } });
    const added = res.events.filter((e) => !seen.has(keyOf(e)));
    const initial = seen.size === 0;
    for (const e of added) seen.add(keyOf(e));
    body.prepend(...added.map((e) => eventRow(ctx, e, !initial)));
    if (initial) {
      cursor = res.next_cursor;
      more.hidden = !cursor;
    }
    none.hidden = seen.size > 0;
    table.hidden = seen.size === 0;
  }

  more.addEventListener('click', () =>
    act(more, line, async () => {
      const res = await api('GET', '/api/nft/collections/activity', { query: { collectionId: ctx.id, limit: 50, cursor } });
      const added = res.events.filter((e) => !seen.has(keyOf(e)));
      for (const e of added) seen.add(keyOf(e));
      body.append(...added.map((e) => eventRow(ctx, e, false)));
      cursor = res.next_cursor;
      more.hidden = !cursor;
    }),
  );

  loadNewest().catch((err) => say(line, errorText(err), 'bad'));
  const stop = followCollection(address, {
    onState(state, detail) {
      showState(state, detail);
      // Joined (or joined again after a reconnect): what happened while not in the room is read now.
      if (state === 'live') loadNewest().catch((err) => say(line, errorText(err), 'bad'));
    },
    onEvent(name) {
      loadNewest().catch((err) => say(line, errorText(err), 'bad'));
      if (name === 'emprops:appToken:minted') ctx.reload().catch(() => undefined);
    },
  });

  const indexer = indexerDetails();
  const el = h(
    'div',
    { class: 'activity-layout' },
    card(
      'Mints and transfers',
      h('p', { class: 'hint' }, 'As indexed from the chain. ', live),
      none,
      table,
      h('div', { class: 'more' }, more, line),
    ),
    card('Indexer', indexer.el),
  );
  return {
    el,
    dispose() {
      stop();
      indexer.dispose();
    },
  };
}
