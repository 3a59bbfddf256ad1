/**
 * Wallets proven by Sign-In with Ethereum (docs/auth.md "Wallets"), on the real backend and a real
 * anvil (signatures checked by a public client's verifySiweMessage): two users with ordinary JWTs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSiweMessage } from 'viem/siwe';
import { privateKeyToAccount } from 'viem/accounts';
import { getAddress } from 'viem';
import { ANVIL_PRIVATE_KEYS } from '../src/chain/anvil.ts';
import { loadArtifact } from '../src/chain/artifacts.ts';
import { waitForReceipt } from '../src/chain/wait-receipt.ts';
import { bearer, userToken } from './helpers/content.ts';
import { call } from './helpers/platform.ts';
import { linkWallet } from './helpers/wallets.ts';
import { startMintingPlatform, type MintingPlatform } from './minting/helpers.ts';

describe('wallets (Sign-In with Ethereum)', () => {
  let mp: MintingPlatform;
  let alice: string;
  let bob: string;
  const a1 = privateKeyToAccount(ANVIL_PRIVATE_KEYS[1]!);
  const a2 = privateKeyToAccount(ANVIL_PRIVATE_KEYS[2]!);
  const a3 = privateKeyToAccount(ANVIL_PRIVATE_KEYS[3]!);
  const nonce = (token: string, body: Record<string, unknown> = {}) =>
    call(`${mp.backendUrl}/api/auth/wallet/nonce`, { headers: bearer(token), body });
  const verify = (token: string, body: Record<string, unknown>) =>
    call(`${mp.backendUrl}/api/auth/wallet/verify`, { headers: bearer(token), body });

  before(async () => {
    mp = await startMintingPlatform({ worker: false, env: { SIWE_DOMAIN: 'atelier.test' } });
    alice = await userToken('wallet-alice');
    bob = await userToken('wallet-bob');
  });
  after(() => mp.close());

  test('a user links a wallet by signing the prepared message; it is listed and shown in /api/me', async () => {
    const n = await nonce(alice, { address: a1.address });
    assert.equal(n.status, 201, JSON.stringify(n.body));
    assert.equal(n.body.data.domain, 'atelier.test');
    assert.equal(n.body.data.chain_id, 31337);
    assert.match(n.body.data.message, /^atelier\.test wants you to sign in with your Ethereum account:/);
    const message = n.body.data.message as string;
    const r = await verify(alice, { message, signature: await a1.signMessage({ message }) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.address, a1.address);
    assert.equal(r.body.data.newly_linked, true);
    assert.equal(r.body.data.provider, 'wallet');

    const list = await call(`${mp.backendUrl}/api/wallets`, { headers: bearer(alice) });
    assert.deepEqual(
      list.body.data.map((w: { address: string }) => w.address),
      [a1.address],
    );
    const me = await call(`${mp.backendUrl}/api/me`, { headers: bearer(alice) });
    assert.ok(
      me.body.data.identities.some(
        (i: { provider: string; provider_user_id: string }) => i.provider === 'wallet' && i.provider_user_id === a1.address.toLowerCase(),
      ),
    );
    // Bob sees none of Alice's wallets.
    const bobs = await call(`${mp.backendUrl}/api/wallets`, { headers: bearer(bob) });
    assert.deepEqual(bobs.body.data, []);
  });

  test('a nonce is used once: replaying the signed message is refused', async () => {
    const n = await nonce(alice, { address: a2.address });
    const message = n.body.data.message as string;
    const signature = await a2.signMessage({ message });
    const [first, second] = await Promise.all([verify(alice, { message, signature }), verify(alice, { message, signature })]);
    const statuses = [first.status, second.status].sort();
    assert.deepEqual(statuses, [200, 400], JSON.stringify([first.body, second.body]));
    const refused = first.status === 400 ? first : second;
    assert.match(refused.body.error, /nonce/);
  });

  test("another user's nonce, a wrong domain, a wrong chain, an expired message, a bad signature: 400 naming it", async () => {
    // Bob cannot use a nonce issued to Alice.
    const n = await nonce(alice, { address: a3.address });
    const message = n.body.data.message as string;
    const stolen = await verify(bob, { message, signature: await a3.signMessage({ message }) });
    assert.equal(stolen.status, 400);
    assert.match(stolen.body.error, /nonce/);

    const fresh = (await nonce(alice)).body.data.nonce as string;
    const build = (over: Record<string, unknown>) =>
      createSiweMessage({
        address: a3.address,
        chainId: 31337,
        domain: 'atelier.test',
        nonce: fresh,
        uri: 'http://atelier.test',
        version: '1',
        ...over,
      });
    const phish = build({ domain: 'evil.example' });
    const wrongDomain = await verify(alice, { message: phish, signature: await a3.signMessage({ message: phish }) });
    assert.equal(wrongDomain.status, 400);
    assert.match(wrongDomain.body.error, /evil\.example/);
    const other = build({ chainId: 999_999 });
    const wrongChain = await verify(alice, { message: other, signature: await a3.signMessage({ message: other }) });
    assert.equal(wrongChain.status, 400);
    assert.match(wrongChain.body.error, /chain 999999/);
    const old = build({ expirationTime: new Date(Date.now() - 60_000) });
    const expired = await verify(alice, { message: old, signature: await a3.signMessage({ message: old }) });
    assert.equal(expired.status, 400);
    assert.match(expired.body.error, /expired/);
    const good = build({});
    const badSig = await verify(alice, { message: good, signature: await a2.signMessage({ message: good }) });
    assert.equal(badSig.status, 400);
    assert.match(badSig.body.error, /signature/);
    for (const junk of ['0x00', '0x1234', `0x${'ff'.repeat(65)}`, `0x${'00'.repeat(200)}`]) {
      const r = await verify(alice, { message: good, signature: junk });
      assert.equal(r.status, 400, `${junk.slice(0, 12)}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, /signature/);
    }
    const notSiwe = await verify(alice, { message: 'hello', signature: '0x00' });
    assert.equal(notSiwe.status, 400);
    assert.match(notSiwe.body.error, /EIP-4361/);
    // None of the refused checks used the nonce up: the good message still links.
    const ok = await verify(alice, { message: good, signature: await a3.signMessage({ message: good }) });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test('a wallet linked to Alice cannot be linked to Bob (409); linking it again to Alice is fine', async () => {
    const taken = await linkWallet(mp.backendUrl, bob, a1);
    assert.equal(taken.status, 409, JSON.stringify(taken.body));
    assert.match(taken.body.error, /another user/);
    const again = await linkWallet(mp.backendUrl, alice, a1);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.newly_linked, false);
  });

  test('a contract wallet (EIP-1271) links when its signer signs; another signature is refused', async () => {
    const signer = privateKeyToAccount(ANVIL_PRIVATE_KEYS[6]!);
    const art = loadArtifact('TestContractWallet');
    const deployer = mp.wallet(4);
    const hash = await deployer.deployContract({ abi: art.abi, bytecode: art.bytecode, args: [signer.address] } as never);
    const contractWallet = getAddress((await waitForReceipt(mp.client, hash)).contractAddress!);
    const carol = await userToken('wallet-carol');

    const n1 = await nonce(carol, { address: contractWallet });
    const m1 = n1.body.data.message as string;
    const impostor = await verify(carol, { message: m1, signature: await a2.signMessage({ message: m1 }) });
    assert.equal(impostor.status, 400, JSON.stringify(impostor.body));
    assert.match(impostor.body.error, /signature/);
    const linked = await verify(carol, { message: m1, signature: await signer.signMessage({ message: m1 }) });
    assert.equal(linked.status, 200, JSON.stringify(linked.body));
    assert.equal(linked.body.data.address, contractWallet);
  });

  test('anonymous callers get 401', async () => {
    const r = await call(`${mp.backendUrl}/api/auth/wallet/nonce`, { body: {} });
    assert.equal(r.status, 401);
  });
});
