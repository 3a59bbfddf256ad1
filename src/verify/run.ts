/**
 * `atelier verify` (docs/fairness.md "Verify"): checks a collection from public data alone — the
 * chain through an RPC, and the documents, receipts and images their URLs serve. One line per
 * token (`token 3: ok` or `token 3: <what differs>`), then a summary. Exit codes: 0 every token
 * checks out; 1 something differs; 3 nothing differs but the secret is not revealed yet, so the
 * seeds could not be recomputed (run it again after the reveal). Bad arguments and an unreachable
 * RPC are 2 (src/verify/command.ts).
 */
import { createHash } from 'node:crypto';
import type { Hex } from 'viem';
import { PROCEDURAL_RENDERER_VERSION, merkleRootOf, receiptLeaf, type TokenReceipt } from '../domain/receipt.ts';
import type { DeckEntry } from '../domain/exact-deck.ts';
import { checkDealt, checkExactDeck, checkReceipt, checkReveal, type PublishedExact } from '../domain/verify-receipt.ts';
import type { VerifyArgs } from './args.ts';
import { openChain, type ChainReader, type CollectionOnChain } from './chain.ts';
import { downloadsThrough } from './fetch.ts';
import { rerenderPixelsSha256 } from './render.ts';

export const EXIT_OK = 0;
export const EXIT_DIFFERS = 1;
export const EXIT_USAGE = 2;
export const EXIT_NOT_REVEALED = 3;

export interface Downloads {
  json(url: string): Promise<unknown>;
  bytes(url: string): Promise<Buffer>;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const obj = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** The receipt route answers the receipt itself; an enveloped `{data: receipt}` is read too. */
function asReceipt(body: unknown): TokenReceipt | null {
  const b = obj(body);
  const r = b && b.version === undefined && obj(b.data) ? obj(b.data) : b;
  return r && r.version === 1 && obj(r.seed) && Array.isArray(r.variables) && obj(r.output) ? (r as unknown as TokenReceipt) : null;
}

interface TokenResult {
  differences: string[];
  notes: string[];
  leaf: Hex | null;
}

async function checkToken(
  args: VerifyArgs,
  chain: ChainReader,
  onChain: CollectionOnChain,
  tokenId: number,
  get: Downloads,
  exact?: { published: PublishedExact; deck: DeckEntry[] | null },
): Promise<TokenResult> {
  const differences: string[] = [];
  const notes: string[] = [];
  const fail = (d: string): TokenResult => ({ differences: [...differences, d], notes, leaf: null });

  let uri: string;
  try {
    uri = await chain.tokenURI(tokenId);
  } catch (err) {
    return fail(`tokenURI(${tokenId}) fails: ${messageOf(err)}`);
  }
  let doc: Record<string, unknown> | null;
  try {
    doc = obj(await get.json(uri));
  } catch (err) {
    return fail(`its document: ${messageOf(err)}`);
  }
  if (!doc) return fail(`its document at ${uri} is not a JSON object`);
  const generation = obj(doc.generation);
  if (!generation || typeof generation.receipt !== 'string') return fail('its document has no generation.receipt (no fair seed)');
  // A frozen collection's tokenURI is in its bundle (ipfs://<root>/metadata/<id>), which holds the
  // receipt too (receipts/<id>.json, the same bytes): read there, it needs no platform at all
  // (docs/permanence.md "Freezing").
  const bundled = /^ipfs:\/\/([^/]+)\/metadata\/(\d+)$/.exec(uri);
  const receiptUrl = bundled ? `ipfs://${bundled[1]}/receipts/${bundled[2]}.json` : generation.receipt;
  let receipt: TokenReceipt | null;
  try {
    receipt = asReceipt(await get.json(receiptUrl));
  } catch (err) {
    return fail(`its receipt: ${messageOf(err)}`);
  }
  if (!receipt) return fail(`${receiptUrl} is not a version 1 receipt`);
  const leaf = receiptLeaf(receipt);

  if (receipt.seed.value !== null && generation.seed !== receipt.seed.value) {
    differences.push(`the document's seed ${String(generation.seed)} is not the receipt's ${receipt.seed.value}`);
  }
  const blockNumber = receipt.seed.inputs?.block_number;
  const canonicalBlockHash = typeof blockNumber === 'number' ? await chain.blockHash(blockNumber) : null;
  const checked = checkReceipt(tokenId, receipt, {
    chainId: args.chainId,
    collection: args.address,
    commitment: onChain.commitment,
    secret: onChain.secret,
    mint: onChain.mints.get(tokenId) ?? null,
    canonicalBlockHash,
  });
  differences.push(...checked.differences);
  notes.push(...checked.notes);
  if (exact?.deck) differences.push(...checkDealt(tokenId, receipt, exact.published, exact.deck));
  else if (exact) notes.push('dealt values not checked: the deck could not be recomputed');

  // The image as served, against the receipt's hash of the file.
  const image = typeof doc.image === 'string' ? doc.image : '';
  // A frozen collection's document names its image in the bundle (ipfs://<images cid>/…,
  // docs/permanence.md): another URL of the same file, which the sha256 below checks.
  if (image !== receipt.output.url && !image.startsWith('ipfs://'))
    differences.push(`the document's image ${image || '(none)'} is not the receipt's output ${receipt.output.url}`);
  try {
    const bytes = await get.bytes(image || receipt.output.url);
    const got = sha256(bytes);
    if (got !== receipt.output.sha256) differences.push(`image sha256 is ${got}, the receipt says ${receipt.output.sha256}`);
  } catch (err) {
    differences.push(`image: ${messageOf(err)}`);
  }

  // The picture itself: re-rendered when the built-in renderer made it; a model's output cannot be.
  if (receipt.renderer_version === PROCEDURAL_RENDERER_VERSION) {
    try {
      const pixels = await rerenderPixelsSha256(receipt, get.bytes);
      if (pixels !== receipt.output.pixels_sha256) {
        differences.push(`re-rendered pixels sha256 is ${pixels}, the receipt says ${receipt.output.pixels_sha256}`);
      }
    } catch (err) {
      differences.push(`re-render failed: ${messageOf(err)}`);
    }
  } else if (receipt.renderer_version) {
    notes.push(`not re-rendered: made by renderer ${receipt.renderer_version}, this verify renders ${PROCEDURAL_RENDERER_VERSION}`);
  } else {
    notes.push(
      `not re-rendered: made by ${receipt.connector.name} (a model's output cannot be reproduced; its hash and receipt were checked)`,
    );
  }
  return { differences, notes, leaf };
}

/** The collection's `fairness` object in its contractURI document: the receipts' Merkle root when published. */
async function checkCollectionDocument(
  onChain: CollectionOnChain,
  leaves: Array<Hex | null>,
  get: Downloads,
): Promise<{ differences: string[]; lines: string[] }> {
  const differences: string[] = [];
  const lines: string[] = [];
  if (!onChain.contractURI) return { differences, lines: ['receipts root: the contract has no contractURI'] };
  let fairness: Record<string, unknown> | null = null;
  try {
    fairness = obj(obj(await get.json(onChain.contractURI))?.fairness);
  } catch (err) {
    return { differences: [`collection document: ${messageOf(err)}`], lines };
  }
  if (!fairness) return { differences, lines: ['receipts root: the collection document has no fairness object'] };
  if (typeof fairness.seed_commitment === 'string' && fairness.seed_commitment.toLowerCase() !== onChain.commitment.toLowerCase()) {
    differences.push(`the collection document's seed_commitment ${fairness.seed_commitment} is not the contract's ${onChain.commitment}`);
  }
  const root = fairness.receipts_merkle_root;
  if (typeof root !== 'string') {
    lines.push('receipts root: not published yet (it is, once every token of the max supply is minted and generated)');
    return { differences, lines };
  }
  if (leaves.some((l) => l === null)) {
    differences.push(`receipts root ${root} cannot be checked: some receipts could not be read`);
    return { differences, lines };
  }
  const ours = merkleRootOf(leaves as Hex[]);
  if (fairness.receipts_count !== undefined && fairness.receipts_count !== leaves.length) {
    differences.push(`the collection document counts ${String(fairness.receipts_count)} receipts, the chain has ${leaves.length} tokens`);
  }
  if (ours?.toLowerCase() !== root.toLowerCase()) differences.push(`receipts root is ${root}, the receipts give ${ours}`);
  else lines.push(`receipts root: ok (${root}, ${leaves.length} receipts)`);
  return { differences, lines };
}

/** contractURI `fairness.exact` when the collection has exact counts; null otherwise (or unreadable: the document check says so). */
async function readExact(onChain: CollectionOnChain, get: Downloads): Promise<PublishedExact | null> {
  if (!onChain.contractURI) return null;
  const exact = obj(obj(obj(await get.json(onChain.contractURI).catch(() => null))?.fairness)?.exact);
  if (!exact || typeof exact.provenance_hash !== 'string' || !obj(exact.spec)) return null;
  return exact as unknown as PublishedExact;
}

/** What verify reads through: the chain and the downloads (the real ones unless a test passes fakes). */
export interface VerifyDeps {
  chain?: ChainReader;
  get?: Downloads;
}

export async function verifyCollection(args: VerifyArgs, out: (line: string) => void, deps: VerifyDeps = {}): Promise<number> {
  const get = deps.get ?? downloadsThrough(args.gateway);
  const chain = deps.chain ?? (await openChain(args.rpc, args.chainId, args.address, args.fromBlock));
  const onChain = await chain.collection();
  out(`collection ${args.chainId}:${args.address}: ${onChain.mints.size} minted token(s), totalSupply ${onChain.totalSupply}`);
  const reveal = checkReveal(onChain.commitment, onChain.secret);
  let failed = 0;
  if (reveal) {
    out(`seed: ${reveal}`);
    failed++;
  } else if (onChain.secret) out(`seed: commitment ${onChain.commitment}, revealed secret matches it`);
  else out(`seed: commitment ${onChain.commitment}; the secret is not revealed yet`);
  // Every token the contract counts must have been found and checked (a log range the RPC cut
  // short, or a --from-block after the first mint, would otherwise pass unseen tokens).
  if (BigInt(onChain.mints.size) !== BigInt(onChain.totalSupply)) {
    out(`collection: totalSupply is ${onChain.totalSupply} but ${onChain.mints.size} mint(s) were found in the logs`);
    failed++;
  }

  // Exact counts: the deck, its provenance and the offset, before the tokens (docs/fairness.md "Exact counts").
  const exact = await readExact(onChain, get);
  let dealt: { published: PublishedExact; deck: DeckEntry[] | null } | undefined;
  if (exact) {
    const lastMintBlock = onChain.mints.size > 0 ? Math.max(...[...onChain.mints.values()].map((m) => m.blockNumber)) : null;
    const blockHash = exact.offset_block !== null ? await chain.blockHash(exact.offset_block) : null;
    const checked = checkExactDeck(exact, (await chain.provenanceHash?.()) ?? null, onChain.secret, { blockHash, lastMintBlock });
    for (const d of checked.differences) out(`exact: ${d}`);
    failed += checked.differences.length;
    out(
      `exact: provenance ${exact.provenance_hash}, offset ${exact.offset ?? 'not taken yet'}${checked.notes.length ? ` (${checked.notes.join('; ')})` : ''}`,
    );
    if (exact.offset === null) {
      out('summary: the deck is not dealt yet (the offset comes from a block after the sale): run verify again after the reveal');
      return failed > 0 ? EXIT_DIFFERS : EXIT_NOT_REVEALED;
    }
    dealt = { published: exact, deck: checked.deck };
  }

  const leaves: Array<Hex | null> = [];
  let ok = 0;
  for (const tokenId of onChain.mints.keys()) {
    const r = await checkToken(args, chain, onChain, tokenId, get, dealt);
    leaves.push(r.leaf);
    if (r.differences.length === 0) {
      ok++;
      out(`token ${tokenId}: ok${r.notes.length > 0 ? ` (${r.notes.join('; ')})` : ''}`);
    } else {
      out(`token ${tokenId}: ${r.differences.join('; ')}`);
    }
  }
  const differing = onChain.mints.size - ok;
  const doc = await checkCollectionDocument(onChain, leaves, get);
  for (const line of doc.lines) out(line);
  for (const d of doc.differences) out(`collection: ${d}`);
  failed += differing + doc.differences.length;

  if (failed > 0) {
    out(`summary: ${ok} of ${onChain.mints.size} token(s) ok, ${failed} problem(s): NOT verified`);
    return EXIT_DIFFERS;
  }
  if (!onChain.secret) {
    out(
      `summary: ${ok} of ${onChain.mints.size} token(s) ok so far; the secret is not revealed yet, so no seed was recomputed: run verify again after the reveal`,
    );
    return EXIT_NOT_REVEALED;
  }
  out(`summary: all ${ok} token(s) ok`);
  return EXIT_OK;
}
