// #/platform (operator) — the platform contracts on a chain (GET/POST /api/nft/deploy), the
// platform wallet's health (GET /api/nft/wallet-health) and the indexer's state, both re-read
// every 5 s (the indexer is also shown on a collection's Activity tab).
import { api } from '../api.js';
import { act, badge, card, errorText, feedback, field, h, hex, kv, when } from '../dom.js';
import { isOperator } from '../session.js';

const REFRESH_MS = 5000;

/** The indexer's state, re-read every 5 s while shown (quietly: the last error stays visible). */
export function indexerDetails() {
  const el = h('div', { id: 'indexer-info' }, h('p', { class: 'muted' }, 'Loading…'));
  let timer;
  let stopped = false;
  async function load() {
    try {
      const { state: s = {} } = await api('GET', '/api/nft/ownership/indexer-status');
      const where = s.indexer_process?.running_in;
      el.replaceChildren(
        kv([
          [
            'Status',
            badge(s.down ? `down (last: ${s.status ?? '—'})` : (s.status ?? '—'), s.down ? 'bad' : s.status === 'idle' ? 'good' : 'info'),
            'indexer-status',
          ],
          [
            'Running in',
            where === 'this' ? 'this platform' : where === 'other' ? `another process (${s.indexer_process.holder})` : 'no process',
            'indexer-where',
          ],
          ['Last indexed block', s.last_indexed_block ?? '—'],
          ['Head / lag', `${s.head_block ?? '—'} / ${s.lag_blocks ?? '—'} blocks`, 'indexer-lag'],
          ['Warnings', s.warnings?.length ? h('span', { class: 'bad' }, s.warnings.join('; ')) : 'none', 'indexer-warnings'],
          ['Last error', s.last_error ? h('span', { class: 'bad' }, s.last_error) : 'none', 'indexer-error'],
          ['Chain', s.chain_id ?? '—'],
          ['Updated', when(s.updated_at), 'indexer-updated'],
        ]),
      );
    } catch (err) {
      el.replaceChildren(h('p', { class: 'bad', role: 'alert' }, errorText(err)));
    }
    if (!stopped) timer = setTimeout(load, REFRESH_MS);
  }
  load();
  return {
    el,
    dispose() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * The platform wallet per chain as the wallet-health duty last read it (docs/operations.md
 * "Wallet health"): address, balance, threshold, and a warning when it is below the threshold.
 */
export function walletHealthDetails() {
  const el = h('div', { id: 'wallet-health', class: 'wallet-health' }, h('p', { class: 'muted' }, 'Loading…'));
  let timer;
  let stopped = false;
  async function load() {
    try {
      const { wallets } = await api('GET', '/api/nft/wallet-health');
      if (wallets.length === 0) {
        el.replaceChildren(
          h('p', { class: 'muted', id: 'wallet-unread' }, 'Not read yet: the wallet-health duty reads the balance every 30 seconds.'),
        );
      } else {
        el.replaceChildren(
          ...wallets.flatMap((w) => [
            w.low
              ? h(
                  'p',
                  { class: 'banner bad wallet-low', role: 'alert', 'data-chain': w.chain_id },
                  `Low balance on ${w.chain_name}: the platform wallet holds ${w.balance_eth} ETH, below its threshold of ${w.threshold_eth} ETH. Fund it before mints and deploys start failing.`,
                )
              : null,
            kv(
              [
                ['Chain', w.chain_name],
                ['Address', h('code', { class: 'hex', title: w.address }, w.address), 'wallet-address'],
                ['Balance', `${w.balance_eth} ETH`, 'wallet-balance'],
                ['Threshold', `${w.threshold_eth} ETH`, 'wallet-threshold'],
                ['State', w.low ? badge('low', 'bad') : badge('healthy', 'good'), 'wallet-state'],
                ['Read', when(w.checked_at)],
              ],
              { 'data-chain': w.chain_id },
            ),
          ]),
        );
      }
    } catch (err) {
      el.replaceChildren(h('p', { class: 'bad', role: 'alert' }, errorText(err)));
    }
    if (!stopped) timer = setTimeout(load, REFRESH_MS);
  }
  load();
  return {
    el,
    dispose() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

function deploymentKv(res, chainId) {
  const d = res.deployment ?? {};
  return kv(
    [
      ['Chain', String(d.chainId ?? chainId)],
      ['Factory', hex(d.contracts?.DiamondFactory), 'factory'],
      ['Deployer', hex(d.deployer)],
      ['Deployed at', when(d.timestamp)],
      [
        'Stale',
        res.stale ? h('strong', { class: 'bad' }, `yes: ${res.error ?? 'the factory has no code'}`) : h('span', { class: 'good' }, 'no'),
        'stale',
      ],
    ],
    { id: 'platform-info' },
  );
}

export function platformPage() {
  if (!isOperator()) {
    return {
      el: h(
        'div',
        { class: 'page' },
        h('h1', {}, 'Platform'),
        h('p', { class: 'banner warn' }, 'The platform is managed by its operator.'),
      ),
      title: 'Platform',
    };
  }
  const chainInput = h('input', { id: 'chain-id', type: 'number', min: 1, value: 31337 });
  const info = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const line = feedback({ id: 'platform-feedback' });
  const chainId = () => {
    const n = Number(chainInput.value);
    return Number.isInteger(n) && n > 0 ? n : 31337;
  };

  async function load() {
    try {
      info.replaceChildren(deploymentKv(await api('GET', '/api/nft/deploy', { query: { chainId: chainId() } }), chainId()));
    } catch (err) {
      // No record yet is the normal state of a fresh chain.
      if (err.status !== 404) throw err;
      info.replaceChildren(
        kv(
          [
            ['Factory', h('strong', { class: 'bad', 'data-field': 'factory' }, 'not deployed')],
            ['Detail', err.message],
          ],
          { id: 'platform-info' },
        ),
      );
    }
  }
  const refresh = h('button', { type: 'button', class: 'secondary', onclick: (e) => act(e.currentTarget, line, load) }, 'Refresh');
  const deploy = h('button', { id: 'platform-deploy', type: 'button' }, 'Deploy platform');
  deploy.addEventListener('click', () =>
    act(
      deploy,
      line,
      async () => {
        const res = await api('POST', '/api/nft/deploy', { body: { chainId: chainId() } });
        info.replaceChildren(deploymentKv(res, chainId()));
        return res.deployed ? 'Platform deployed.' : 'The platform was already deployed and live.';
      },
      { working: 'Deploying the platform contracts…' },
    ),
  );
  chainInput.addEventListener('change', () => act(null, line, load));
  load().catch((err) => act(null, line, () => Promise.reject(err)));

  const indexer = indexerDetails();
  const wallet = walletHealthDetails();
  const el = h(
    'div',
    { class: 'page' },
    h(
      'div',
      { class: 'page-head' },
      h(
        'div',
        {},
        h('h1', {}, 'Platform'),
        h('p', { class: 'muted' }, 'The factory every collection is deployed from, the platform wallet and the ownership indexer.'),
      ),
    ),
    h(
      'div',
      { class: 'panel-grid' },
      card('Platform contracts', h('div', { class: 'row' }, field('Chain id', chainInput), refresh, deploy), line, info),
      card(
        'Platform wallet',
        h('p', { class: 'hint' }, 'It pays the gas of deploys, mints and admin calls. Refreshed every 5 seconds.'),
        wallet.el,
      ),
      card('Indexer', h('p', { class: 'hint' }, 'Refreshed every 5 seconds.'), indexer.el),
    ),
  );
  return {
    el,
    title: 'Platform',
    dispose() {
      indexer.dispose();
      wallet.dispose();
    },
  };
}
