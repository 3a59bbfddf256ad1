import assert from 'node:assert/strict';
import { test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { testConfig } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import type { LinkedWallet } from '../db/wallets.ts';
import { siweSettingsOf, siweVerifierOf } from './wire-wallets.ts';
import { createWalletService, type WalletStore } from './wallets.ts';

const KEY = `0x${'11'.repeat(32)}` as const;
const account = privateKeyToAccount(KEY);
const ALICE = { kind: 'user', userId: '00000000-0000-4000-8000-0000000000a1' } as const;

/** Nonces and links in memory; the real verifier without chain access (EOA recovery offline). */
function world() {
  const nonces = new Map<string, { userId: string | null; used: boolean }>();
  const links = new Map<string, string>();
  const store: WalletStore = {
    async insertWalletNonce(nonce, userId) {
      nonces.set(nonce, { userId, used: false });
      return new Date(Date.now() + 600_000);
    },
    async consumeWalletNonce(nonce, userId) {
      const n = nonces.get(nonce);
      if (!n || n.used || n.userId !== userId) return false;
      n.used = true;
      return true;
    },
    pruneWalletNonces: async () => undefined,
    async linkWallet(userId, address) {
      const holder = links.get(address.toLowerCase());
      const wallet: LinkedWallet = { address: address.toLowerCase(), linked_at: new Date(), last_used_at: null };
      if (holder && holder !== userId) return { outcome: 'taken', wallet: null };
      links.set(address.toLowerCase(), userId);
      return { outcome: holder ? 'already' : 'linked', wallet };
    },
    listWallets: async (userId) =>
      [...links].filter(([, u]) => u === userId).map(([address]) => ({ address, linked_at: new Date(), last_used_at: null })),
    isWalletOf: async (userId, address) => links.get(address.toLowerCase()) === userId,
    async userOfWallet(address) {
      const id = address.toLowerCase();
      if (!links.has(id)) links.set(id, `00000000-0000-4000-8000-${String(links.size + 1).padStart(12, '0')}`);
      return links.get(id)!;
    },
  };
  const config = testConfig({ SIWE_DOMAIN: 'atelier.test', NFT_CHAIN_ID: '31337' });
  const opened: Array<{ userId: string; address: string }> = [];
  const sessions = {
    async open(userId: string, opts: { address: string }) {
      opened.push({ userId, address: opts.address });
      return { token: `ats_${opened.length}`, expires_at: new Date(Date.now() + 3_600_000) };
    },
  };
  return {
    svc: createWalletService(store, siweVerifierOf(config), siweSettingsOf(config), undefined, sessions),
    links,
    opened,
  };
}

test('offline (no chain access): an EOA links by signing the prepared message; junk signatures are 400', async () => {
  const w = world();
  const n = await w.svc.nonce(ALICE, { address: account.address });
  assert.equal(n.domain, 'atelier.test');
  const message = n.message!;
  for (const junk of ['0x00', `0x${'ff'.repeat(65)}`]) {
    await assert.rejects(w.svc.verify(ALICE, { message, signature: junk }), (e) => e instanceof AppError && e.kind === 'invalid');
  }
  const ok = await w.svc.verify(ALICE, { message, signature: await account.signMessage({ message }) });
  assert.equal(ok.address, account.address);
  assert.equal(await w.svc.isLinked(ALICE.userId, account.address), true);
  // Other chains are not accepted without an RPC for them.
  await assert.rejects(w.svc.nonce(ALICE, { chain_id: 1 }), /chain 1 is not supported/);
  const other = createSiweMessage({
    address: account.address,
    chainId: 1,
    domain: 'atelier.test',
    nonce: 'abcdefgh1234',
    uri: 'http://x',
    version: '1',
  });
  await assert.rejects(w.svc.verify(ALICE, { message: other, signature: await account.signMessage({ message: other }) }), /chain 1/);
});

test('a caller that is not an internal user (uuid) gets 404; the public 401', async () => {
  const w = world();
  await assert.rejects(
    w.svc.nonce({ kind: 'user', userId: 'ext-provider-id' }, {}),
    (e) => e instanceof AppError && e.kind === 'not_found',
  );
  await assert.rejects(w.svc.nonce({ kind: 'anonymous' }, {}), (e) => e instanceof AppError && e.kind === 'unauthorized');
});

test("sign-in: the signed sign-in message opens a session for the wallet's user; nonces never cross between sign-in and link", async () => {
  const w = world();
  const anyone = { kind: 'anonymous' } as const;
  const n = await w.svc.loginNonce(anyone, { address: account.address });
  assert.match(n.message, /Sign in to Atelier with this wallet\./);
  const signature = await account.signMessage({ message: n.message });
  // A sign-in nonce does not link a wallet to a signed-in user.
  await assert.rejects(
    w.svc.verify(ALICE, { message: n.message, signature }),
    (e) => e instanceof AppError && e.extra?.code === 'SIWE_BAD_NONCE',
  );
  const first = await w.svc.login(anyone, { message: n.message, signature });
  assert.equal(first.address, account.address);
  assert.equal(first.token, 'ats_1');
  assert.deepEqual(w.opened, [{ userId: first.user_id, address: account.address }]);
  // Once only.
  await assert.rejects(
    w.svc.login(anyone, { message: n.message, signature }),
    (e) => e instanceof AppError && e.extra?.code === 'SIWE_BAD_NONCE',
  );
  // The same wallet signs in again as the same user.
  const again = await w.svc.loginNonce(anyone, { address: account.address });
  const second = await w.svc.login(anyone, { message: again.message, signature: await account.signMessage({ message: again.message }) });
  assert.equal(second.user_id, first.user_id);
  // A link nonce (issued to Alice) does not sign in.
  const link = await w.svc.nonce(ALICE, { address: account.address });
  await assert.rejects(
    w.svc.login(anyone, { message: link.message!, signature: await account.signMessage({ message: link.message! }) }),
    (e) => e instanceof AppError && e.extra?.code === 'SIWE_BAD_NONCE',
  );
});
