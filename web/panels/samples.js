// Samples tab: previews generated from the collection before (or after) deployment, no token
// minted. Shows the free allowance for a wallet, requests samples, and lists them with their
// images (re-read every 2 s while some are pending).
import { addressProblem, readAddress } from '../address.js';
import { api } from '../api.js';
import { STATUS_TONE, act, art, badge, card, empty, errorText, feedback, field, h, kv, say, usd, when } from '../dom.js';
import { callerWallet } from '../session.js';

export function samplesPanel(ctx) {
  let timer;
  let disposed = false;
  const allowance = h('div', { id: 'sample-allowance' }, h('p', { class: 'muted' }, 'Give a wallet to see its free allowance.'));
  const grid = h('ul', { class: 'token-grid', id: 'sample-grid' });
  const listLine = feedback();
  const wallet = h('input', {
    name: 'wallet_address',
    value: callerWallet(),
    placeholder: '0x…',
    required: true,
    class: 'address',
    autocomplete: 'off',
  });

  async function loadAllowance() {
    const w = wallet.value.trim();
    if (addressProblem(w)) return;
    const s = await api('GET', '/api/nft/sample-status', { query: { collectionId: ctx.id, wallet_address: w } });
    allowance.replaceChildren(
      kv([
        ['Free samples left', h('strong', {}, String(s.free_remaining)), 'free-remaining'],
        ['Used for this collection', `${s.free_used_collection} of ${s.free_limit_per_collection}`],
        ['Used by this requester', `${s.free_used_user} of ${s.free_limit_per_user}`],
        ['Paid samples', String(s.paid_count)],
        ['Price after the free ones', usd(s.compute_cost_per_sample)],
      ]),
    );
  }

  async function loadSamples() {
    clearTimeout(timer);
    const res = await api('GET', '/api/nft/samples', { query: { collectionId: ctx.id } });
    if (disposed) return;
    grid.replaceChildren(
      ...(res.samples.length
        ? res.samples.map((s) =>
            h(
              'li',
              { class: 'token-card', 'data-sample': s.outputId, 'data-status': s.status },
              art(s.url, 'sample', {
                placeholder: s.status === 'failed' ? 'generation failed' : 'generating…',
                img: { 'data-sample-image': s.outputId },
              }),
              h(
                'div',
                { class: 'token-body' },
                h(
                  'div',
                  { class: 'token-title' },
                  badge(s.status, STATUS_TONE[s.status] ?? 'neutral'),
                  s.is_free ? h('span', { class: 'muted' }, 'free') : h('span', { class: 'muted' }, 'paid'),
                ),
                h(
                  'div',
                  { class: 'traits-line muted' },
                  (s.traits ?? [])
                    .map((t) => t?.value ?? '')
                    .filter(Boolean)
                    .join(' · ') || when(s.created_at),
                ),
              ),
            ),
          )
        : [h('li', { class: 'wide' }, empty('No sample yet. Request a few to see what the collection makes.'))]),
    );
    if (res.samples.some((s) => s.status === 'pending')) timer = setTimeout(() => loadSamples().catch(() => undefined), 2000);
  }

  const line = feedback({ id: 'samples-feedback' });
  const submit = h('button', { type: 'submit' }, 'Request samples');
  const form = h(
    'form',
    { id: 'samples-form', class: 'stack', novalidate: true },
    h(
      'div',
      { class: 'fields' },
      field('Wallet', wallet, 'whose allowance is used'),
      field('How many', h('input', { name: 'count', type: 'number', min: 1, max: 10, value: 2, required: true }), '1 to 10'),
    ),
    h(
      'details',
      {},
      h('summary', {}, 'Paid samples'),
      field(
        'Payment transaction',
        h('input', { name: 'tx_hash', placeholder: '0x… (stablecoin transfer)', autocomplete: 'off' }),
        'only when the free allowance is used up',
      ),
    ),
    h('div', { class: 'actions' }, submit, line),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(submit, line, async () => {
      const w = readAddress('wallet', wallet.value);
      const count = Number(form.elements.count.value);
      if (!Number.isInteger(count) || count < 1 || count > 10) throw new Error('how many: 1 to 10');
      const tx = form.elements.tx_hash.value.trim();
      const res = await api('POST', '/api/nft/samples', {
        body: { collectionId: ctx.id, wallet_address: w, count, ...(tx ? { tx_hash: tx } : {}) },
      });
      await Promise.all([loadSamples(), loadAllowance()]);
      return `Requested ${res.samples.length} sample${res.samples.length === 1 ? '' : 's'}; they appear below when generated.`;
    });
  });
  wallet.addEventListener('change', () => loadAllowance().catch((err) => say(line, errorText(err), 'bad')));

  loadSamples().catch((err) => say(listLine, errorText(err), 'bad'));
  loadAllowance().catch((err) => say(line, errorText(err), 'bad'));

  const el = h(
    'div',
    { class: 'stack' },
    h('div', { class: 'panel-grid' }, card('Request samples', form), card('Free allowance', allowance)),
    card('Samples', grid, listLine),
  );
  return {
    el,
    dispose() {
      disposed = true;
      clearTimeout(timer);
    },
  };
}
