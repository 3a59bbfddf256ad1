// Platform deployment (GET/POST /api/nft/deploy) and indexer status.
import { api } from './api.js';
import { $, busy, fillKv, h, showMessage } from './dom.js';

export function chainId() {
  const n = Number($('#chain-id').value);
  return Number.isInteger(n) && n > 0 ? n : 31337;
}

function renderDeployment(res) {
  const d = res.deployment ?? {};
  const factory = d.contracts?.DiamondFactory;
  fillKv($('#platform-info'), [
    ['Chain', String(d.chainId ?? chainId())],
    ['Factory', h('code', {}, factory ?? '—')],
    ['Deployer', h('code', {}, d.deployer ?? '—')],
    ['Deployed at', d.timestamp ?? '—'],
    ['Stale', res.stale ? h('strong', { class: 'bad' }, `yes: ${res.error ?? 'factory has no code'}`) : h('span', { class: 'good' }, 'no')],
  ]);
}

export async function loadPlatform() {
  const el = $('#platform-info');
  try {
    renderDeployment(await api('GET', '/api/nft/deploy', { query: { chainId: chainId() } }));
  } catch (err) {
    // No record yet is a normal state of a fresh chain, not an error to shout about.
    if (err.status === 404) {
      fillKv(el, [
        ['Factory', h('span', { class: 'bad' }, 'not deployed')],
        ['Detail', err.message],
      ]);
      return;
    }
    el.replaceChildren();
    throw err;
  }
}

export async function deployPlatform(button) {
  await busy(button, async () => {
    showMessage('Deploying the platform contracts…', 'info');
    const res = await api('POST', '/api/nft/deploy', { body: { chainId: chainId() } });
    renderDeployment(res);
    showMessage(res.deployed ? 'Platform deployed.' : 'The platform was already deployed and live.');
  });
}

export async function loadIndexer() {
  const res = await api('GET', '/api/nft/ownership/indexer-status');
  const s = res.state ?? {};
  const where = s.indexer_process?.running_in;
  fillKv($('#indexer-info'), [
    [
      'Status',
      h(
        'strong',
        { 'data-field': 'indexer-status', class: s.down ? 'bad' : '' },
        s.down ? `down (last: ${s.status ?? '—'})` : (s.status ?? '—'),
      ),
    ],
    ['Running in', where === 'this' ? 'this platform' : where === 'other' ? `another process (${s.indexer_process.holder})` : 'no process'],
    ['Last indexed block', s.last_indexed_block ?? '—'],
    ['Head / lag', `${s.head_block ?? '—'} / ${s.lag_blocks ?? '—'} blocks`],
    ['Warnings', s.warnings?.length ? h('span', { class: 'bad' }, s.warnings.join('; ')) : 'none'],
    ['Last error', s.last_error ? h('span', { class: 'bad' }, s.last_error) : 'none'],
    ['Chain', s.chain_id ?? '—'],
    ['Updated', s.updated_at ?? '—'],
  ]);
}

export function initPlatform() {
  $('#platform-refresh').addEventListener('click', (e) => busy(e.currentTarget, loadPlatform));
  $('#platform-deploy').addEventListener('click', (e) => deployPlatform(e.currentTarget));
  $('#indexer-refresh').addEventListener('click', (e) => busy(e.currentTarget, loadIndexer));
}
