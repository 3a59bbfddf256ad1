/**
 * Fair generation (docs/fairness.md) on the real backend, a real anvil and a generation worker:
 * what a public minter may choose, the seed commitment before the first mint, the reveal checked
 * by the contract, seeds recomputed from chain data alone, and receipts (who chose what).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { getAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { collections } from '../../src/db/schema/index.ts';
import { commitmentOf, seedWord, tokenSeed } from '../../src/domain/fair-seed.ts';
import { bearer, userToken } from '../helpers/content.ts';
import { asService, call, sampleData } from '../helpers/platform.ts';
import { linkWallet } from '../helpers/wallets.ts';
import { startMintingPlatform, waitFor, type MintingPlatform } from './helpers.ts';

function fairData() {
  const d = sampleData() as ReturnType<typeof sampleData> & { variables: unknown[] };
  d.variables.push(
    {
      name: 'fur',
      is_feature: true,
      feature_name: 'Fur',
      value: [
        { value: 'gold', display_name: 'Gold', weight: 1 },
        { value: 'grey', display_name: 'Grey', weight: 99 },
      ],
    },
    { name: 'ref_image_1', is_user_customizable: true, value: [] },
  );
  return d;
}

describe('fair generation: minter choices, commit–reveal seeds, receipts', () => {
  let mp: MintingPlatform;
  let alice: string;
  let bob: string;
  let collectionId: string;
  let contract: Address;
  const bobWallet = privateKeyToAccount(ANVIL_PRIVATE_KEYS[2]!);
  const totalSupply = () => mp.client.readContract({ address: contract, abi: collectionAbi, functionName: 'totalSupply' });
  const mintAs = (token: string | null, variables: Record<string, unknown>, base = mp.backendUrl) =>
    call(`${base}/nft/collections/${collectionId}/mint-and-generate`, {
      headers: token ? bearer(token) : asService(),
      body: { recipient: bobWallet.address, variables },
    });

  before(async () => {
    mp = await startMintingPlatform({ env: { SIWE_DOMAIN: 'atelier.test' } });
    alice = await userToken('fair-alice');
    bob = await userToken('fair-bob');
    const aliceId = (await call(`${mp.backendUrl}/api/me`, { headers: bearer(alice) })).body.data.id as string;
    const deployed = await mp.deployedCollection({ title: 'Fair', editions: 22, data: fairData() });
    collectionId = deployed.id;
    contract = deployed.address;
    await mp.database.db.update(collections).set({ user_id: aliceId, mint_access: 'public' }).where(eq(collections.id, collectionId));
    assert.equal((await linkWallet(mp.backendUrl, bob, bobWallet)).status, 200);
  });
  after(() => mp.close());

  test('a public minter setting seed, a platform-picked variable or a reference image is 400 naming the field; nothing is minted', async () => {
    for (const [variables, field] of [
      [{ seed: 7 }, 'variables.seed'],
      [{ fur: 'gold' }, 'variables.fur'],
      [{ ref_image_1: 'https://example.com/mine.png' }, 'variables.ref_image_1'],
      [{ not_a_variable: 'x' }, 'variables.not_a_variable'],
    ] as const) {
      const r = await mintAs(bob, variables);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(JSON.stringify(r.body), new RegExp(field.replace('.', '\\.')));
    }
    assert.equal(await totalSupply(), 0n);
    // Nothing on chain either: the secret was not even committed for a refused request.
    assert.equal(
      await mp.client.readContract({ address: contract, abi: collectionAbi, functionName: 'seedCommitment' }),
      `0x${'0'.repeat(64)}`,
    );
  });

  test('a selectable variable is honoured for a public minter; the owner override is recorded as owner', async () => {
    const bobs = await mintAs(bob, { color: 'red', animal: 'fox' });
    assert.equal(bobs.status, 201, JSON.stringify(bobs.body));
    const owners = await mintAs(alice, { fur: 'gold', color: 'blue' });
    assert.equal(owners.status, 201, JSON.stringify(owners.body));
    const receiptOf = async (tokenId: number) => {
      let r: { status: number; body: any } | undefined;
      await waitFor(
        `receipt of token ${tokenId}`,
        async () => {
          r = await call(`${mp.backendUrl}/collections/${collectionId}/tokens/${tokenId}/receipt`);
          return r.status === 200 ? true : undefined;
        },
        60_000,
      );
      return r!.body;
    };
    const b = await receiptOf(bobs.body.data.mint.tokenId);
    const chosen = (rc: { variables: Array<{ name: string; value: string; chosen_by: string }> }, name: string) =>
      rc.variables.find((v) => v.name === name)!;
    assert.deepEqual(chosen(b, 'color'), { name: 'color', value: 'red', chosen_by: 'minter' });
    assert.equal(chosen(b, 'animal').chosen_by, 'minter');
    assert.equal(chosen(b, 'fur').chosen_by, 'platform');
    const o = await receiptOf(owners.body.data.mint.tokenId);
    assert.deepEqual(chosen(o, 'fur'), { name: 'fur', value: 'gold', chosen_by: 'owner' });
    assert.match(o.output.sha256, /^[0-9a-f]{64}$/);
    // The token's document carries the generation object pointing at the receipt.
    const doc = await call(`${mp.backendUrl}/collections/${collectionId}/tokens/${owners.body.data.mint.tokenId}`);
    assert.equal(doc.body.generation.seed, o.seed.value);
    assert.match(doc.body.generation.receipt, /\/receipt$/);
  });

  test('commitment before the first mint; 20 tokens; a wrong reveal reverts; the reveal is accepted; seeds recomputed from chain data match the receipts', async () => {
    const commitLogs = await mp.client.getContractEvents({
      address: contract,
      abi: collectionAbi,
      eventName: 'SeedCommitted',
      fromBlock: 0n,
    });
    assert.equal(commitLogs.length, 1);
    const firstMint = await mp.client.getContractEvents({ address: contract, abi: collectionAbi, eventName: 'Transfer', fromBlock: 0n });
    assert.ok(commitLogs[0]!.blockNumber < firstMint[0]!.blockNumber, 'committed before token 1 was minted');

    for (let i = 0; i < 18; i++) {
      const r = await mintAs(null, {});
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    assert.equal(await totalSupply(), 20n);

    // A wrong secret reverts on chain (the platform wallet is the minter, so only the check refuses it).
    const minter = mp.wallet(0);
    await assert.rejects(
      minter.writeContract({ address: contract, abi: collectionAbi, functionName: 'reveal', args: [`0x${'11'.repeat(32)}`], chain: null }),
      /WrongSeedSecret/,
    );
    // Bob may not reveal; Alice (the owner) may.
    assert.equal(
      (await call(`${mp.backendUrl}/nft/collections/${collectionId}/reveal`, { method: 'POST', headers: bearer(bob), body: {} })).status,
      403,
    );
    const revealed = await call(`${mp.backendUrl}/nft/collections/${collectionId}/reveal`, {
      method: 'POST',
      headers: bearer(alice),
      body: {},
    });
    assert.equal(revealed.status, 200, JSON.stringify(revealed.body));

    // From chain data alone: the secret, the commitment and each mint's block hash.
    const [isRevealed, secret] = await mp.client.readContract({ address: contract, abi: collectionAbi, functionName: 'revealedSeed' });
    assert.equal(isRevealed, true);
    const commitment = await mp.client.readContract({ address: contract, abi: collectionAbi, functionName: 'seedCommitment' });
    assert.equal(commitmentOf(secret), commitment);
    const transfers = await mp.client.getContractEvents({ address: contract, abi: collectionAbi, eventName: 'Transfer', fromBlock: 0n });
    const mints = transfers.filter((t) => t.args.from === '0x0000000000000000000000000000000000000000');
    assert.equal(mints.length, 20);
    for (const t of mints) {
      const tokenId = Number(t.args.tokenId);
      const expected = tokenSeed({
        secret: secret as Hex,
        chainId: 31337,
        collection: getAddress(contract),
        tokenId,
        blockHash: t.blockHash!,
      });
      let receipt: { seed: { value: string; word: number } } | undefined;
      await waitFor(
        `receipt of token ${tokenId}`,
        async () => {
          const r = await call(`${mp.backendUrl}/collections/${collectionId}/tokens/${tokenId}/receipt`);
          receipt = r.body;
          return r.status === 200 ? true : undefined;
        },
        90_000,
      );
      assert.equal(receipt!.seed.value, expected, `token ${tokenId}`);
      assert.equal(receipt!.seed.word, seedWord(expected));
    }
    // The contractURI document shows the commitment and the revealed secret.
    const doc = await call(`${mp.backendUrl}/collections/${collectionId}/metadata.json`);
    assert.equal(doc.body.fairness.seed_commitment, commitment);
  });
});
