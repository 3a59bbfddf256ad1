// Settings tab (owner or operator): details, generation (prompt and variables), mint policy and
// the cover image. Each form saves on its own (PUT /api/nft/collections/update, POST …/cover) and
// answers next to its button; the page's record is re-read after a save.
import { addressProblem, readAddress } from '../address.js';
import { api } from '../api.js';
import { act, art, card, feedback, field, fileBase64, h, usd } from '../dom.js';
import { generationEditor } from '../editor.js';

/** "2.5" (USD) → "2500000" (stablecoin units, 6 decimals). */
export function usdToUnits(text) {
  const m = /^(\d{1,50})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!m) throw new Error('mint price: a decimal number of USD with at most 6 decimals, e.g. 2.50');
  return (BigInt(m[1]) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0'))).toString();
}

const unitsToUsdText = (units) => (units == null ? '' : usd(units).replace(/ USD$/, ''));

/** ISO → the value of a datetime-local input (local time), and back. */
function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
const fromLocalInput = (value) => (value ? new Date(value).toISOString() : null);

async function update(ctx, patch) {
  await api('PUT', '/api/nft/collections/update', { body: { collectionId: ctx.id, ...patch } });
  await ctx.reload();
}

function detailsCard(ctx) {
  const c = ctx.collection;
  const line = feedback({ id: 'details-feedback' });
  const submit = h('button', { type: 'submit' }, 'Save details');
  const form = h(
    'form',
    { id: 'details-form', class: 'stack', novalidate: true },
    field('Title', h('input', { name: 'title', value: c.title, required: true, maxlength: 200 })),
    field('Description', h('textarea', { name: 'description', rows: 3, maxlength: 10000 }, c.description)),
    h(
      'div',
      { class: 'fields' },
      field(
        'Editions',
        h('input', { name: 'editions', type: 'number', min: Math.max(1, c.tokens_minted), value: c.editions, disabled: c.deployed }),
        c.deployed ? 'fixed by the contract: change the max supply on the Contract tab' : 'the max supply at deployment',
      ),
      field(
        'Display price (USD)',
        h('input', { name: 'price', type: 'number', min: 0, step: 'any', value: c.price }),
        'the record\u2019s price, shown with the collection; the mint price when none is set',
      ),
    ),
    h('div', { class: 'actions' }, submit, line),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(submit, line, async () => {
      const f = form.elements;
      const patch = { title: f.title.value.trim(), description: f.description.value, price: Number(f.price.value || 0) };
      if (!patch.title) throw new Error('title: must not be empty');
      if (!Number.isFinite(patch.price) || patch.price < 0) throw new Error('display price: a number ≥ 0');
      if (!c.deployed) patch.editions = Number(f.editions.value);
      await update(ctx, patch);
      return 'Details saved.';
    });
  });
  return card('Details', form);
}

function generationCard(ctx) {
  const editor = generationEditor(ctx.collection.data);
  const line = feedback({ id: 'generation-feedback' });
  const submit = h('button', { type: 'submit' }, 'Save generation');
  const form = h(
    'form',
    { id: 'generation-form', class: 'stack', novalidate: true },
    ctx.collection.deployed ? h('p', { class: 'hint' }, 'Changes apply to tokens minted from now on.') : null,
    editor.el,
    h('div', { class: 'actions' }, submit, line),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(submit, line, async () => {
      await update(ctx, { data: editor.read() });
      return 'Generation saved.';
    });
  });
  return card('Generation', form);
}

function policyCard(ctx) {
  const p = ctx.collection.mint_policy;
  const line = feedback({ id: 'policy-feedback' });
  const submit = h('button', { type: 'submit' }, 'Save mint policy');
  const access = h(
    'select',
    { name: 'mint_access' },
    h('option', { value: 'owner', selected: p.access === 'owner' }, 'Owner only: the owner and the operator mint'),
    h('option', { value: 'public', selected: p.access === 'public' }, 'Public: anyone mints, paying the price'),
  );
  const form = h(
    'form',
    { id: 'policy-form', class: 'stack', novalidate: true },
    // The three prices, said once where they are set (docs/admin-ui.md "Prices").
    h(
      'div',
      { class: 'hint prices', id: 'price-story' },
      h(
        'p',
        {},
        h('strong', {}, 'Mint price'),
        ': what a collector pays per token, in the stablecoin (now ',
        h('span', { 'data-field': 'price-in-effect' }, usd(p.price)),
        ').',
      ),
      h(
        'p',
        {},
        h('strong', {}, 'Display price'),
        ' (Details): the record\u2019s price, shown with the collection; it is the mint price while no mint price is set.',
      ),
      h(
        'p',
        {},
        h('strong', {}, 'Sample price'),
        ': what a sample costs after the free ones; set by the platform, shown on the Samples tab.',
      ),
    ),
    field('Who may mint', access),
    h(
      'div',
      { class: 'grid-2' },
      field(
        'Mint price (USD)',
        h('input', {
          name: 'mint_price',
          value: unitsToUsdText(p.mint_price),
          placeholder: `default: the price, ${usd(p.price)}`,
          inputmode: 'decimal',
        }),
        'what collectors pay per token; empty: the display price',
      ),
      field(
        'Payout address',
        h('input', { name: 'payout_address', value: p.payout_address ?? '', placeholder: '0x…', class: 'address' }),
        'where public mint payments go',
      ),
      field(
        'Max per wallet',
        h('input', { name: 'max_per_wallet', type: 'number', min: 1, value: p.max_per_wallet ?? '', placeholder: 'no limit' }),
      ),
      field('Merkle root', h('input', { name: 'mint_merkle_root', value: p.merkle_root ?? '', placeholder: '0x… (large allowlists)' })),
      field('Opens', h('input', { name: 'mint_start', type: 'datetime-local', value: toLocalInput(p.start) }), 'empty: open now'),
      field('Closes', h('input', { name: 'mint_end', type: 'datetime-local', value: toLocalInput(p.end) }), 'empty: no end'),
    ),
    field(
      'Allowlist',
      h(
        'textarea',
        { name: 'mint_allowlist', rows: 3, spellcheck: 'false', placeholder: 'one address per line; empty: anyone' },
        (p.allowlist ?? []).join('\n'),
      ),
    ),
    h('div', { class: 'actions' }, submit, line),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(submit, line, async () => {
      const f = form.elements;
      const text = (name) => f[name].value.trim();
      const allowlist = text('mint_allowlist')
        .split(/[\s,]+/)
        .filter(Boolean);
      const bad = allowlist.findIndex((a) => addressProblem(a));
      if (bad >= 0) throw new Error(`allowlist: line ${bad + 1} ("${allowlist[bad]}"): ${addressProblem(allowlist[bad])}`);
      const payout = text('payout_address') ? readAddress('payout address', text('payout_address')) : null;
      const max = text('max_per_wallet');
      if (max && (!Number.isInteger(Number(max)) || Number(max) < 1)) throw new Error('max per wallet: a whole number ≥ 1, or empty');
      // An empty field clears the setting (null).
      await update(ctx, {
        mint_access: f.mint_access.value,
        mint_price: text('mint_price') ? usdToUnits(text('mint_price')) : null,
        payout_address: payout,
        max_per_wallet: max ? Number(max) : null,
        mint_allowlist: allowlist.length ? allowlist : null,
        mint_merkle_root: text('mint_merkle_root') || null,
        mint_start: fromLocalInput(f.mint_start.value),
        mint_end: fromLocalInput(f.mint_end.value),
      });
      const inEffect = form.querySelector('[data-field=price-in-effect]');
      if (inEffect) inEffect.textContent = usd(ctx.collection.mint_policy.price);
      return `Mint policy saved: ${ctx.collection.mint_policy.access}, ${usd(ctx.collection.mint_policy.price)} per token.`;
    });
  });
  return card('Mint policy', form);
}

function coverCard(ctx) {
  const preview = h(
    'div',
    { id: 'cover-preview' },
    art(ctx.collection.cover_image_url, 'cover', { class: 'cover', placeholder: 'no cover yet' }),
  );
  const input = h('input', { type: 'file', name: 'cover', accept: 'image/png,image/jpeg,image/webp,image/gif', required: true });
  const line = feedback({ id: 'cover-feedback' });
  const submit = h('button', { type: 'submit' }, 'Upload cover');
  const form = h(
    'form',
    { id: 'cover-form', class: 'stack', novalidate: true },
    h(
      'p',
      { class: 'hint' },
      'The collection image marketplaces show (ERC-7572 image), and every token\u2019s image until its artwork is ready. PNG, JPEG, WebP or GIF, up to 10 MB.',
    ),
    preview,
    field('Image file', input),
    h('div', { class: 'actions' }, submit, line),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(submit, line, async () => {
      const file = input.files?.[0];
      if (!file) throw new Error('image file: choose one');
      if (file.size > 10 * 1024 * 1024) throw new Error('image file: at most 10 MB');
      await api('POST', '/api/nft/collections/cover', {
        body: { collectionId: ctx.id, base64Data: await fileBase64(file), ...(file.type ? { mimeType: file.type } : {}) },
      });
      await ctx.reload();
      preview.replaceChildren(art(ctx.collection.cover_image_url, 'cover', { class: 'cover' }));
      input.value = '';
      return 'Cover uploaded.';
    });
  });
  return card('Cover image', form);
}

export function settingsPanel(ctx) {
  const el = h(
    'div',
    { class: 'settings-layout' },
    h('div', { class: 'stack' }, detailsCard(ctx), generationCard(ctx)),
    h('div', { class: 'stack' }, policyCard(ctx), coverCard(ctx)),
  );
  return { el };
}
