/**
 * Reorgs of the platform's own mints (docs/minting.md "Reorgs"): the chain goes back
 * past a platform mint and another minter's mint takes its token id first. The tx sender sends the
 * recorded mint again (same hash), which lands with the next id. The deck never keeps the old id
 * with the old hash and recipient (that id is someone else's now): the crash repair un-mints it
 * and gives it the token the re-sent transaction really minted, whose owner on chain is the deck's
 * recipient.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { encodeFunctionData, parseAbi, type Hex } from 'viem';
import { decks } from '../../src/db/schema/index.ts';
import { repairReorgedMints } from '../../src/services/crash-repair.ts';
import { repairPortsOf } from '../../src/services/wire-nft.ts';
import { asService, call } from '../helpers/platform.ts';
import { startMintingPlatform, waitFor, type MintingPlatform } from './helpers.ts';

const abi = parseAbi([
  'function setMinter(address)',
  'function mintTo(address to, uint256 quantity)',
  'function ownerOf(uint256) view returns (address)',
]);

describe('reorged platform mints', () => {
  let mp: MintingPlatform;
  before(async () => {
    mp = await startMintingPlatform({ worker: false });
  });
  after(async () => {
    await mp.close();
  });
  const ports = () => repairPortsOf(mp.database.db, mp.backendUrl, async () => ({ finished: 0, released: 0 }));

  test('another mint takes the vanished mint’s id: the deck is un-minted, then gets the id its re-sent mint really has', async () => {
    const { id, address } = await mp.deployedCollection({ title: 'Reorg Race' });
    const other = mp.wallet(5);
    await mp.chain.sender(31337).send({
      purpose: 'test_set_minter',
      to: address,
      data: encodeFunctionData({ abi, functionName: 'setMinter', args: [other.account.address] }),
    });
    const recipient = mp.wallet(3).account.address;
    const snapshot = await mp.anvil.rpc<string>('evm_snapshot');
    const first = await call(`${mp.backendUrl}/nft/collections/${id}/mint`, { body: { recipient, quantity: 1 }, headers: asService() });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const [deck] = await mp.database.db.select().from(decks).where(eq(decks.collection_id, id));
    assert.equal(deck!.token_id, 1);
    const txHash = deck!.mint_tx_hash as Hex;

    // The reorg: our block is gone, and the other minter's mint is mined first on the new branch
    // (a high tip orders it first should our re-sent transaction already be in the pool).
    await mp.anvil.rpc('evm_setAutomine', [false]);
    await mp.anvil.rpc('evm_revert', [snapshot]);
    await other.sendTransaction({
      to: address,
      data: encodeFunctionData({ abi, functionName: 'mintTo', args: [other.account.address, 1n] }),
      gas: 300_000n,
      maxPriorityFeePerGas: 50_000_000_000n,
      maxFeePerGas: 200_000_000_000n,
    });
    await mp.anvil.rpc('evm_mine');
    await mp.anvil.rpc('evm_setAutomine', [true]);
    assert.equal(
      (await mp.client.readContract({ address, abi, functionName: 'ownerOf', args: [1n] })).toLowerCase(),
      other.account.address.toLowerCase(),
      'token 1 is the other minter’s now',
    );

    // The sender's catch-up sends the recorded mint again: same hash, now token 2.
    const receipt = await waitFor(
      'the re-sent mint mined',
      () =>
        mp.client.getTransactionReceipt({ hash: txHash }).then(
          (r) => r,
          () => undefined,
        ),
      30_000,
    );
    assert.equal(receipt.status, 'success');
    assert.equal(
      (await mp.client.readContract({ address, abi, functionName: 'ownerOf', args: [2n] })).toLowerCase(),
      recipient.toLowerCase(),
    );

    // Repair (the crash-repair duty's pass; it runs every 10 s in the lease holder).
    await waitFor(
      'the sender recorded the new receipt',
      async () => {
        const r = await repairReorgedMints(ports());
        const [d] = await mp.database.db.select().from(decks).where(eq(decks.id, deck!.id));
        return d!.token_id === 2 ? { r, d } : undefined;
      },
      30_000,
    );
    const [d] = await mp.database.db.select().from(decks).where(eq(decks.id, deck!.id));
    assert.equal(d!.token_id, 2, 'the deck holds the token its mint really has');
    assert.equal(d!.mint_status, 'minted');
    assert.equal(d!.mint_tx_hash?.toLowerCase(), txHash.toLowerCase());
    assert.equal(d!.mint_recipient?.toLowerCase(), recipient.toLowerCase());
    assert.equal(d!.metadata_uri, `${mp.backendUrl}/collections/${id}/tokens/2`);
    const all = await mp.database.db.select().from(decks).where(eq(decks.collection_id, id));
    assert.deepEqual(
      all.map((x) => x.token_id),
      [2],
      'no deck claims token 1 (the other minter’s), none was created twice',
    );
    assert.deepEqual(await repairReorgedMints(ports()), { unminted: 0, reminted: 0 }, 'settled: a second pass changes nothing');
  });
});
