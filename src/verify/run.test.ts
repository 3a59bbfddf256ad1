import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Hex } from 'viem';
import { commitmentOf, fairSeedOf } from '../domain/fair-seed.ts';
import { merkleRootOf, receiptLeaf, type TokenReceipt } from '../domain/receipt.ts';
import { deriveSeed, pickPreset } from '../domain/variables.ts';
import { ProceduralConnector } from '../generation/connectors/procedural.ts';
import { pixelsSha256 } from '../services/receipts.ts';
import type { VerifyArgs } from './args.ts';
import type { ChainReader, CollectionOnChain } from './chain.ts';
import { EXIT_DIFFERS, EXIT_NOT_REVEALED, EXIT_OK, verifyCollection } from './run.ts';

const secret = `0x${'5a'.repeat(32)}` as Hex;
const address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const args: VerifyArgs = { rpc: 'http://rpc.test', chainId: 31337, address, fromBlock: 0n, gateway: 'https://ipfs.io' };
const BASE = 'http://atelier.test';
const options = [
  { value: 'gold', weight: 1 },
  { value: 'grey', weight: 2 },
];
const blockHash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A collection of two procedural tokens as the platform would serve it, plus a fake chain. */
async function world() {
  const served = new Map<string, unknown>();
  const files = new Map<string, Buffer>();
  const receipts: TokenReceipt[] = [];
  for (const tokenId of [1, 2]) {
    const fair = fairSeedOf({
      secret,
      chainId: 31337,
      collection: address,
      tokenId,
      blockHash: blockHash(tokenId + 10),
      blockNumber: tokenId + 10,
    });
    const fur = pickPreset(fair.seed_word, 'fur', options);
    const step = { id: 1, node_name: 'image', prompt: `a ${fur} cat`, seed: deriveSeed(fair.seed_word, 'step:1'), width: 48, height: 48 };
    const art = await new ProceduralConnector().generate(
      { prompt: step.prompt, seed: step.seed, width: 48, height: 48, values: { fur }, referenceImages: [] },
      () => undefined,
    );
    const url = `${BASE}/files/${tokenId}.png`;
    files.set(url, art.bytes);
    const { seed, seed_word, ...inputs } = fair;
    const receipt: TokenReceipt = {
      version: 1,
      collection: { id: 'c', chain_id: 31337, address: address.toLowerCase() },
      token_id: tokenId,
      seed: { value: seed, word: seed_word, chosen_by: 'platform', inputs },
      variables: [{ name: 'fur', value: fur, chosen_by: 'platform', options }],
      prompt: step.prompt,
      steps: [{ ...step, reference_images: [] }],
      workflow: { id: 'w', name: 'procedural', type: 'basic', definition_sha256: null },
      connector: { name: 'procedural', models: [], version: null },
      renderer_version: 'atelier-procedural/1',
      output: { url, mime_type: 'image/png', sha256: sha256(art.bytes), pixels_sha256: await pixelsSha256(art.bytes) },
    };
    receipts.push(receipt);
    served.set(`${BASE}/tokens/${tokenId}`, { image: url, generation: { seed, receipt: `${BASE}/tokens/${tokenId}/receipt` } });
    served.set(`${BASE}/tokens/${tokenId}/receipt`, receipt);
  }
  const onChain: CollectionOnChain = {
    commitment: commitmentOf(secret),
    secret,
    totalSupply: 2n,
    contractURI: `${BASE}/collection.json`,
    mints: new Map([1, 2].map((id) => [id, { blockNumber: id + 10, blockHash: blockHash(id + 10) }])),
  };
  served.set(onChain.contractURI!, {
    fairness: { seed_commitment: onChain.commitment, receipts_merkle_root: merkleRootOf(receipts.map(receiptLeaf)), receipts_count: 2 },
  });
  const chain: ChainReader = {
    collection: async () => onChain,
    tokenURI: async (id) => `${BASE}/tokens/${id}`,
    blockHash: async (n) => blockHash(n),
  };
  const get = {
    json: async (url: string) => {
      if (!served.has(url)) throw new Error(`GET ${url} answered 404`);
      return structuredClone(served.get(url));
    },
    bytes: async (url: string) => {
      const b = files.get(url);
      if (!b) throw new Error(`GET ${url} answered 404`);
      return b;
    },
  };
  const run = async () => {
    const lines: string[] = [];
    const code = await verifyCollection(args, (l) => lines.push(l), { chain, get });
    return { code, out: lines.join('\n') };
  };
  return { served, files, receipts, onChain, run };
}

describe('atelier verify over a fake chain and server', () => {
  test('everything as the platform made it: exit 0, each token ok, the receipts root checked', async () => {
    const w = await world();
    const r = await w.run();
    assert.equal(r.code, EXIT_OK, r.out);
    assert.match(r.out, /^token 1: ok$/m);
    assert.match(r.out, /^token 2: ok$/m);
    assert.match(r.out, /^receipts root: ok/m);
    assert.match(r.out, /^summary: all 2 token\(s\) ok$/m);
  });

  test('before the reveal: exit 3, no seed recomputed', async () => {
    const w = await world();
    w.onChain.secret = null;
    const r = await w.run();
    assert.equal(r.code, EXIT_NOT_REVEALED, r.out);
    assert.match(r.out, /^token 1: ok \(seed not recomputed/m);
  });

  test('a receipt whose pixels are not what its inputs render: exit 1 naming the token', async () => {
    const w = await world();
    (w.served.get(`${BASE}/tokens/2/receipt`) as TokenReceipt).output.pixels_sha256 = '0'.repeat(64);
    const r = await w.run();
    assert.equal(r.code, EXIT_DIFFERS, r.out);
    assert.match(r.out, /^token 2: re-rendered pixels sha256 is [0-9a-f]{64}, the receipt says 0{64}/m);
    assert.match(r.out, /^token 1: ok$/m);
    // A changed receipt no longer gives the published root either.
    assert.match(r.out, /^collection: receipts root is/m);
  });

  test('a served image swapped for another token’s, a pick changed, a block moved: each named', async () => {
    const w = await world();
    w.files.set(`${BASE}/files/1.png`, w.files.get(`${BASE}/files/2.png`)!);
    const r2 = w.served.get(`${BASE}/tokens/2/receipt`) as TokenReceipt;
    r2.variables[0]!.value = r2.variables[0]!.value === 'gold' ? 'grey' : 'gold';
    w.onChain.mints.set(2, { blockNumber: 99, blockHash: blockHash(99) });
    const r = await w.run();
    assert.equal(r.code, EXIT_DIFFERS, r.out);
    assert.match(r.out, /^token 1: image sha256 is/m);
    assert.match(r.out, /^token 2: .*block_number is 12, expected 99/m);
    assert.match(r.out, /^token 2: .*variable fur is/m);
  });

  test('a model’s output: hash and receipt checked, not re-rendered', async () => {
    const w = await world();
    for (const id of [1, 2]) {
      const r = w.served.get(`${BASE}/tokens/${id}/receipt`) as TokenReceipt;
      r.renderer_version = null;
      r.connector = { name: 'comfyui', models: ['sdxl'], version: null };
      r.output.pixels_sha256 = null;
    }
    w.served.set(w.onChain.contractURI!, { fairness: { seed_commitment: w.onChain.commitment, receipts_merkle_root: null } });
    const r = await w.run();
    assert.equal(r.code, EXIT_OK, r.out);
    assert.match(r.out, /^token 1: ok \(not re-rendered: made by comfyui/m);
    assert.match(r.out, /^receipts root: not published yet/m);
  });

  test('a revealed secret that is not the commitment fails the collection', async () => {
    const w = await world();
    w.onChain.secret = `0x${'77'.repeat(32)}`;
    const r = await w.run();
    assert.equal(r.code, EXIT_DIFFERS, r.out);
    assert.match(r.out, /^seed: keccak256\(revealed secret\) .* is not the commitment/m);
  });
});
