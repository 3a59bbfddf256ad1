// Mint tab (owner or operator): mint one or several tokens to a recipient, then watch each
// token's artwork being generated, live from its job stream (queued, generating with %,
// completed with the image, failed with Retry). Tokens still generating when the page opens are
// followed too.
import { readAddress } from '../address.js';
import { api } from '../api.js';
import { act, art, card, empty, errorText, feedback, field, h, say } from '../dom.js';
import { jobProgress } from '../live/job-progress.js';
import { callerWallet } from '../session.js';

const MAX_AT_ONCE = 20;

export function mintPanel(ctx) {
  const c = ctx.collection;
  if (c.is_global) return { el: empty('Built-in tools are not minted: they turn an output into a new one (develop).') };
  if (!c.contract_address)
    return {
      el: empty(
        'Deploy the collection before minting.',
        h('a', { href: `#/collections/${ctx.id}`, class: 'button' }, 'Go to the overview'),
      ),
    };

  const followed = new Map(); // tokenId → {row, dispose}
  const list = h('ul', { class: 'progress-list', id: 'generation-list' });
  const listEmpty = h(
    'p',
    { class: 'muted', id: 'generation-empty' },
    'No generation running. Minted tokens appear here while their artwork is made.',
  );

  /** The finished artwork replaces the row's placeholder. */
  async function showImage(tokenId, row) {
    const t = await api('GET', '/api/nft/token', { query: { collectionId: ctx.id, tokenId } });
    row.querySelector('.thumb').replaceWith(art(t.image, `token ${tokenId}`, { class: 'thumb', img: { 'data-token-image': tokenId } }));
  }

  function follow(tokenId, jobId, initial) {
    if (followed.has(tokenId) || !jobId) return;
    listEmpty.hidden = true;
    const progress = jobProgress(jobId, initial, {
      onCompleted: () => showImage(tokenId, row).catch(() => undefined),
    });
    const row = h(
      'li',
      { 'data-token-row': tokenId },
      art(null, '', { class: 'thumb', placeholder: `#${tokenId}` }),
      h(
        'div',
        { class: 'grow' },
        h('a', { href: `#/collections/${ctx.id}/tokens/${tokenId}` }, h('strong', {}, `Token #${tokenId}`)),
        progress.el,
      ),
    );
    list.prepend(row);
    followed.set(tokenId, { row, dispose: progress.dispose });
  }

  const listLine = feedback();
  // Tokens whose artwork is not done yet (the most recent page of the list).
  (async () => {
    const first = await api('GET', '/api/nft/tokens', { query: { collectionId: ctx.id, limit: 100 } });
    const lastPage = Math.max(1, Math.ceil(first.total / 100));
    const res = lastPage > 1 ? await api('GET', '/api/nft/tokens', { query: { collectionId: ctx.id, limit: 100, page: lastPage } }) : first;
    for (const t of res.tokens) {
      const g = t.generation;
      if (g && g.job_id && ['queued', 'generating', 'failed'].includes(g.state))
        follow(t.token_id, g.job_id, { state: g.state, progress: g.progress });
    }
  })().catch((err) => say(listLine, errorText(err), 'bad'));

  const line = feedback({ id: 'mint-feedback' });
  const submit = h('button', { type: 'submit' }, 'Mint');
  const form = h(
    'form',
    { id: 'mint-form', class: 'stack', novalidate: true },
    h(
      'div',
      { class: 'fields wide-first' },
      field(
        'Recipient',
        h('input', {
          name: 'recipient',
          value: callerWallet(),
          placeholder: '0x…',
          required: true,
          class: 'address',
          autocomplete: 'off',
        }),
      ),
      field(
        'How many',
        h('input', { name: 'quantity', type: 'number', min: 1, max: MAX_AT_ONCE, value: 1, required: true }),
        `1 to ${MAX_AT_ONCE}`,
      ),
    ),
    h(
      'details',
      {},
      h('summary', {}, 'Variables (optional)'),
      field(
        'Variables as JSON',
        h('input', { name: 'variables', value: '{}', autocomplete: 'off' }),
        'e.g. {"color": "red"}; others are picked by their weights',
      ),
    ),
    h('div', { class: 'actions' }, submit, line),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(
      submit,
      line,
      async () => {
        const f = form.elements;
        const recipient = readAddress('recipient', f.recipient.value);
        const quantity = Number(f.quantity.value);
        if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_AT_ONCE) throw new Error(`how many: 1 to ${MAX_AT_ONCE}`);
        let variables;
        try {
          variables = JSON.parse(f.variables.value.trim() || '{}');
        } catch (err) {
          throw new Error(`variables: ${err.message}`);
        }
        // One mint per token, each with its own Idempotency-Key (a retried request mints once);
        // sent one after the other so the tokens keep their order.
        const ids = [];
        for (let i = 0; i < quantity; i++) {
          say(line, `Minting ${i + 1} of ${quantity}…`, 'muted');
          try {
            const res = await api('POST', '/api/nft/mint', { body: { collectionId: ctx.id, recipient, variables }, idempotent: true });
            ids.push(res.mint.tokenId);
            follow(res.mint.tokenId, res.generation.jobId, { state: 'queued', progress: 0 });
          } catch (err) {
            if (ids.length === 0) throw err;
            throw new Error(`minted ${ids.length} of ${quantity} (#${ids.join(', #')}); then ${errorText(err)}`);
          } finally {
            if (ids.length) ctx.reload().catch(() => undefined);
          }
        }
        return `Minted ${ids.length === 1 ? `token #${ids[0]}` : `${ids.length} tokens: #${ids.join(', #')}`}; the artwork is being generated below.`;
      },
      { working: 'Minting…' },
    );
  });

  const el = h(
    'div',
    { class: 'panel-grid' },
    card('Mint', form),
    card(
      'Generation',
      h('p', { class: 'hint' }, 'Live from each job: queued, generating, completed or failed.'),
      listEmpty,
      list,
      listLine,
    ),
  );
  return {
    el,
    dispose() {
      for (const f of followed.values()) f.dispose();
    },
  };
}
