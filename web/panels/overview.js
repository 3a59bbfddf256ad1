// Overview tab: supply, minting, the contract and its roles, royalties, mint policy and price —
// the chain's values where the contract answers (the record's otherwise, said so) — and, before
// deployment, the deploy form (deploy by collection id, optional overrides).
import { readAddress } from '../address.js';
import { api } from '../api.js';
import { act, badge, card, errorText, feedback, field, h, hex, kv, usd, when } from '../dom.js';
import { supplyBar } from '../pages/collections.js';
import { platformChain } from '../session.js';

/** "5.00 % to 0x12…ab", or none (no royalty, or 0 basis points). */
export const royaltyText = (r) => (r && r.bps > 0 ? h('span', {}, `${(r.bps / 100).toFixed(2)} % to `, hex(r.receiver)) : 'none');

export function policyPairs(c) {
  const p = c.mint_policy;
  const window = p.start || p.end ? `${p.start ? when(p.start) : 'now'} → ${p.end ? when(p.end) : 'no end'}` : 'always open';
  return [
    ['Who may mint', p.access === 'public' ? 'anyone (public mint)' : 'the owner and the operator', 'policy-access'],
    ['Mint price (collectors pay)', usd(p.price), 'policy-price'],
    ['Display price (record)', usd(Math.round(Number(c.price) * 1e6)), 'display-price'],
    ['Per wallet', p.max_per_wallet == null ? 'no limit' : String(p.max_per_wallet)],
    ['Window', window],
    ['Allowlist', p.allowlist ? `${p.allowlist.length} addresses` : p.merkle_root ? 'Merkle root' : 'none'],
    p.access === 'public' ? ['Payments to', hex(p.payout_address)] : null,
  ];
}

function deployCard(ctx, rerender) {
  const line = feedback({ id: 'deploy-feedback' });
  const button = h('button', { id: 'collection-deploy', type: 'submit' }, 'Deploy on chain');
  const c = ctx.collection;
  const form = h(
    'form',
    { id: 'deploy-form', class: 'stack', novalidate: true },
    h(
      'p',
      {},
      `Deploys this collection\u2019s contract on ${platformChain()?.chain_name ?? 'the platform\u2019s chain'} from its record: name and symbol from the title, metadata URIs from the platform, max supply = editions.`,
    ),
    h(
      'details',
      {},
      h('summary', {}, 'Overrides (optional)'),
      h(
        'div',
        { class: 'grid-2' },
        field('Name', h('input', { name: 'name', maxlength: 255, placeholder: c.title })),
        field('Symbol', h('input', { name: 'symbol', maxlength: 32 })),
        field('Max supply', h('input', { name: 'max_supply', type: 'number', min: 1, placeholder: String(c.editions) })),
        field(
          'Royalty (basis points)',
          h('input', { name: 'royalty_bps', type: 'number', min: 0, max: 10000, placeholder: '0' }),
          '500 = 5 %',
        ),
        field('Royalty receiver', h('input', { name: 'royalty_receiver', placeholder: '0x… (default: the owner)' })),
        field('Contract owner', h('input', { name: 'owner', placeholder: '0x… (default: your wallet, else the platform)' })),
      ),
    ),
    h('div', { class: 'actions' }, button, line),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(
      button,
      line,
      async () => {
        const f = form.elements;
        const body = { collectionId: ctx.id };
        for (const name of ['name', 'symbol']) if (f[name].value.trim()) body[name] = f[name].value.trim();
        if (f.royalty_receiver.value.trim()) body.royalty_receiver = readAddress('royalty receiver', f.royalty_receiver.value);
        if (f.owner.value.trim()) body.owner = readAddress('contract owner', f.owner.value);
        for (const name of ['max_supply', 'royalty_bps']) if (f[name].value.trim()) body[name] = Number(f[name].value);
        const res = await api('POST', '/api/nft/collections/deploy', { body });
        await ctx.reload();
        rerender(`Deployed at ${res.contract_address} (tx ${res.tx_hash}).`);
      },
      { working: 'Deploying the contract…' },
    );
  });
  return card('Deploy', form);
}

/**
 * Gas the platform paid for this collection (GET /api/nft/collections/gas): the owner's and the
 * operator's to see; for anyone else (403) the card stays away.
 */
function gasCard(ctx) {
  const body = h('div', { id: 'gas-spent' }, h('p', { class: 'muted' }, 'Loading…'));
  const el = card(
    'Gas spent',
    body,
    h(
      'p',
      { class: 'hint' },
      "gasUsed × effectiveGasPrice of the platform's transactions for this collection: its deploy, mints and admin calls.",
    ),
  );
  api('GET', '/api/nft/collections/gas', { query: { collectionId: ctx.id } })
    .then((g) =>
      body.replaceChildren(
        h(
          'p',
          { class: 'big' },
          h('span', { 'data-field': 'gas-eth', title: `${g.gas_wei} wei` }, g.gas_eth),
          h('span', { class: 'muted' }, ' ETH'),
        ),
        h(
          'p',
          { class: 'hint' },
          h('span', { 'data-field': 'gas-count' }, String(g.transactions)),
          g.transactions === 1 ? ' transaction' : ' transactions',
          `, ${g.gas_used} gas`,
        ),
      ),
    )
    .catch((err) => {
      if (err.status === 403) el.remove();
      else body.replaceChildren(h('p', { class: 'bad', role: 'alert' }, errorText(err)));
    });
  return el;
}

export function overviewPanel(ctx) {
  const el = h('div', { class: 'panel-grid' });
  let gas;
  function render(notice) {
    const { collection: c, chain, chain_error: chainError } = ctx.overview;
    const minted = chain ? Number(chain.totalSupply) : c.tokens_minted;
    const max = chain ? Number(chain.maxSupply) : (c.max_supply ?? c.editions);
    const cards = [];
    if (notice) cards.push(h('p', { class: 'banner good wide', role: 'status', id: 'overview-notice' }, notice));
    if (chainError)
      cards.push(
        h('p', { class: 'banner warn wide', role: 'alert' }, `The contract did not answer: ${chainError}. Values below are the record's.`),
      );
    cards.push(
      card(
        'Supply',
        h(
          'p',
          { class: 'big' },
          h('span', { 'data-field': 'minted' }, String(minted)),
          h('span', { class: 'muted' }, ' / '),
          h('span', { 'data-field': 'max' }, String(max)),
        ),
        supplyBar(minted, max),
        h('p', { class: 'hint' }, chain ? 'From the contract (totalSupply / maxSupply).' : 'Not deployed: max supply = editions.'),
        chain && chain.totalSupply !== String(c.tokens_minted)
          ? h('p', { class: 'hint warn' }, `The record counts ${c.tokens_minted}; the contract is the truth.`)
          : null,
      ),
    );
    cards.push(
      card(
        'Minting',
        kv([
          [
            'Mint',
            chain ? badge(chain.mintActive ? 'active' : 'paused', chain.mintActive ? 'good' : 'warn') : badge('not deployed', 'neutral'),
            'mint-active',
          ],
          ...policyPairs(c),
        ]),
        h('p', { class: 'hint' }, h('a', { href: `#/collections/${ctx.id}/settings` }, 'Edit the mint policy')),
      ),
    );
    // Read once per panel, and again after a deploy (the form below renders with a notice): live
    // events re-render the panel often, and each read is a request.
    if (!gas || notice) gas = gasCard(ctx);
    cards.push(gas);
    if (chain) {
      cards.push(
        card(
          'Contract',
          kv([
            ['Address', hex(chain.address)],
            ['Name / symbol', `${chain.name} / ${chain.symbol}`],
            ['Owner', hex(chain.owner), 'owner'],
            ['Minter', hex(chain.minter), 'minter'],
            ['Royalties', royaltyText(chain.royalty), 'royalties'],
            ['Chain', c.chain_name, 'contract-chain'],
            ['Deploy tx', hex(c.deploy_tx_hash)],
          ]),
        ),
      );
    } else if (c.is_global) {
      cards.push(
        card(
          'Built-in tool',
          h(
            'p',
            { id: 'builtin-note' },
            'A develop tool: it turns an output into a new one (POST /outputs/:id/develop). It is never deployed nor minted.',
          ),
        ),
      );
    } else if (!c.contract_address) {
      cards.push(deployCard(ctx, render));
    }
    cards.push(
      card(
        'About',
        kv([
          ['Description', c.description || h('span', { class: 'muted' }, 'none')],
          ['Prompt', c.data?.steps?.[0]?.nodePayload?.intent ?? '—'],
          ['Editions', String(c.editions)],
          [
            'Chain',
            c.chain_name ??
              (c.is_global ? 'none (a tool)' : `${platformChain()?.chain_name ?? 'the platform\u2019s chain'}, when deployed`),
            'about-chain',
          ],
          ['Owner (record)', c.user_id ?? 'the platform'],
          ['Created', when(c.created_at)],
          ['Id', h('code', { 'data-field': 'id' }, c.id)],
        ]),
      ),
    );
    cards.at(-1).classList.add('wide');
    el.replaceChildren(...cards);
  }
  render();
  return { el };
}
