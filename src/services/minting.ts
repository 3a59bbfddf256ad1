/**
 * Minting (docs/api/nft.md §3 Minting, §4.1 mint, §4.2 mint, §4.3 mint/generate/tokens;
 * docs/minting.md): mint-and-generate, the backend and design-stage mint, the per-token mint,
 * new artwork for a minted token, and the token reads.
 *
 * Invariants: token ids come from the mint receipt (the chain port), never from a count read
 * before; every check a caller can fail (policy, deployment, variables, supply) runs before the
 * chain is touched; the chain write is sent under the caller's sender key, so a retry of one
 * Idempotency-Key replays the mined transaction and finds the deck it made.
 */
import { getAddress, type Address, type Hex } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import type { DeckRow } from '../db/minting.ts';
import { refuseGlobalCollection } from '../domain/collection-kind.ts';
import { AppError, conflict, invalid, notFound } from '../domain/errors.ts';
import { mintTokenMetadata, tokenUrl, type Attribute } from '../domain/metadata.ts';
import { isExact, type DealtPosition, type DeckEntry } from '../domain/exact-deck.ts';
import type { FairSeed } from '../domain/fair-seed.ts';
import type { GenerationData } from '../domain/generation-data.ts';
import type { Chooser } from '../domain/minter-choices.ts';
import { authorize, can, ownerFor, type Caller } from '../domain/policy.ts';
import type { GenerationPort } from './generation-port.ts';
import type { Admission, MintGate } from './mint-gate.ts';
import { tokenDeckName } from '../domain/deck-name.ts';

export interface MintedState {
  tokenId: number;
  txHash: string;
  recipient: string;
  metadataUri: string;
}

export interface MintStore {
  getCollection(id: string): Promise<CollectionRow>;
  findTokenDeck(collectionId: string, tokenId: number): Promise<DeckRow | undefined>;
  recordMinted(collectionId: string, highestTokenId: number): Promise<void>;
  createMintedDeck(m: MintedState & { collectionId: string; title: string; userId: string | null }): Promise<DeckRow>;
  /** False when the deck already holds another token (it is never rewritten). */
  setMintState(deckId: string, m: MintedState): Promise<boolean>;
  getDeck(id: string): Promise<{ id: string; token_id: number | null }>;
  linkCover(deckId: string, outputId: string, tokenMetadata: (traits: unknown) => Record<string, unknown>): Promise<void>;
  getOutput(
    id: string,
  ): Promise<{ id: string; deck_id: string | null; collection_id: string; job_id: string | null; user_id: string | null }>;
  createDeck(input: { collection_id: string; name: string; userId: string }): Promise<{ id: string }>;
  avatarOfUser(userId: string | null): Promise<string | null>;
  avatarOfWallet(address: string): Promise<string | null>;
  listMints(collectionId: string): Promise<DeckRow[]>;
  deckWithArtwork(deckId: string): Promise<DeckArtwork>;
}

export interface TokenRow {
  deck: DeckRow;
  output: { status: string; url: string | null } | null;
}

export interface DeckArtwork {
  deck: DeckRow;
  output?: { id: string; status: string; url: string | null; job_id: string | null; error_message: string | null };
  job?: { status: string; progress: number | null; error_message: string | null };
}

/** chain/mint.ts `mintTokens` through the chain's tx sender. */
export interface MintChain {
  mint(req: { chainId: number; collection: string; recipient: string; quantity: number; idempotencyKey: string }): Promise<{
    txHash: string;
    tokenIds: number[];
    recipient: Address;
    /** The block that mined it (the tokens' fair seeds mix its hash). */
    blockHash?: Hex;
    blockNumber?: number;
  }>;
}

/** Fair seeds (services/fair-seeds.ts; docs/fairness.md). Absent: seeds are drawn at random (unit tests). */
export interface MintFairness {
  /** The contract's secret is committed on chain (drawn and committed now when it is not). */
  ensureCommitted(c: CollectionRow): Promise<unknown>;
  seedFor(c: CollectionRow, tokenId: number, mined: { blockNumber: number; blockHash: Hex }): Promise<FairSeed>;
}

export interface MintingPorts {
  store: MintStore;
  /** Absent: no chain in this backend (503). */
  chain?: MintChain;
  /** Absent: no job queue in this backend (503). */
  generation?: GenerationPort;
  metadataBaseUrl: string;
  /** Who may mint and what they pay (services/mint-gate.ts). */
  gate: MintGate;
  /**
   * Credits of the generations a user's mint or regeneration starts (docs/jobs.md "Credits"):
   * debited before anything is spent, refunded when nothing started. Absent or 0: free.
   */
  credits?: { perGeneration: number; debit(userId: string, n: number): Promise<void>; refund(userId: string, n: number): Promise<void> };
  /** A token's document changed (its cached metadata is dropped). */
  onTokenChanged?: (collectionId: string, tokenId: number) => void;
  fairness?: MintFairness;
}

export interface MintBody {
  recipient?: string;
  recipient_address?: string;
  chainId?: number;
  outputId?: string;
  quantity: number;
  /** Public mints: the payment of mint_price × quantity (docs/minting.md "Mint policy"). */
  tx_hash?: string;
  /** Public mints on a Merkle allowlist: the recipient's proof. */
  merkle_proof?: string[];
}

/** An exact collection's deck has `editions` entries: never more tokens than that (docs/fairness.md "Exact counts"). */
const maxSupplyOf = (c: CollectionRow) =>
  dealtAtReveal(c) ? Math.min(c.max_supply ?? c.editions, c.editions) : (c.max_supply ?? c.editions);

/**
 * An exact collection's tokens get no artwork at mint: their traits are dealt from the deck at the
 * reveal (services/exact-reveal.ts; docs/fairness.md "Exact counts").
 */
function dealtAtReveal(c: CollectionRow) {
  return isExact(c.data as GenerationData | null);
}

/** The collection's deployment; a `chainId` the caller names must be the one it is deployed on. */
function deployed(c: CollectionRow, chainId?: number): { chainId: number; address: Address } {
  refuseGlobalCollection(c, 'minted');
  if (!c.contract_address || c.chain_id === null) {
    throw conflict(`collection ${c.id} is not deployed: deploy it before minting`, { code: 'NOT_DEPLOYED' });
  }
  if (chainId !== undefined && chainId !== c.chain_id) {
    throw invalid(`body.chainId: collection ${c.id} is deployed on chain ${c.chain_id}, not ${chainId}`);
  }
  return { chainId: c.chain_id, address: getAddress(c.contract_address) };
}

export type MintingService = ReturnType<typeof createMintingService>;

export function createMintingService({
  store,
  chain,
  generation,
  metadataBaseUrl: base,
  gate,
  credits,
  onTokenChanged,
  fairness,
}: MintingPorts) {
  const needChain = () => {
    if (!chain) throw new AppError('unavailable', 'chain operations are not available: this backend has no chain configured');
    return chain;
  };
  const needGeneration = () => {
    if (!generation) throw new AppError('unavailable', 'generation is not available: this backend has no job queue configured');
    return generation;
  };
  /** The minter's picture: the user holding the recipient wallet, else the caller. */
  const minterPfp = async (recipient: string, userId: string | null) =>
    (await store.avatarOfWallet(recipient)) ?? (await store.avatarOfUser(userId));
  const tokenMeta = (c: CollectionRow, tokenId: number) => (traits: unknown) =>
    mintTokenMetadata({
      collection: c,
      tokenId,
      metadataBaseUrl: base,
      attributes: Array.isArray(traits) ? (traits as Attribute[]) : [],
    });
  const minted = (c: CollectionRow, tokenId: number, txHash: string, recipient: string): MintedState => ({
    tokenId,
    txHash,
    recipient,
    metadataUri: tokenUrl(base, c.id, tokenId),
  });

  /** Who the values a caller supplies are recorded as chosen by: the owner/operator, or a public minter. */
  const chooserOf = (caller: Caller, c: CollectionRow): Chooser =>
    can(caller, 'collection.mint', { ownerId: c.user_id }) ? 'owner' : 'minter';

  /**
   * The policy check every mint path runs first: the owner and the operator mint; anyone else
   * only on a public collection (the mint gate then applies its policy). Before any other check,
   * so a refused caller learns nothing else about the collection.
   */
  async function loadForMint(caller: Caller, collectionId: string) {
    const c = await store.getCollection(collectionId);
    if (!can(caller, 'collection.mint', { ownerId: c.user_id }) && c.mint_access !== 'public') {
      authorize(caller, 'collection.mint', { ownerId: c.user_id });
    }
    return c;
  }

  /**
   * Runs `work` for a user's generation with its credits debited first and refunded when it
   * throws; the operator is not charged (its mints and samples are paid otherwise).
   */
  async function charged<T>(caller: Caller, work: () => Promise<T>): Promise<T> {
    const cost = credits?.perGeneration ?? 0;
    const payer = caller.kind === 'user' && cost > 0 ? caller.userId : null;
    if (payer) await credits!.debit(payer, cost);
    try {
      return await work();
    } catch (err) {
      if (payer) await credits!.refund(payer, cost).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Sends the mint after the gate admitted it. What the gate took is given back only when the
   * chain refused (409: nothing was minted); after a timeout the transaction may still mine, so
   * the payment stays claimed and crash repair records the token (docs/minting.md).
   */
  async function mintAdmitted(admission: Admission, req: Parameters<MintChain['mint']>[0]) {
    try {
      return await needChain().mint(req);
    } catch (err) {
      if (err instanceof AppError && err.kind === 'conflict') await admission.undo();
      throw err;
    }
  }

  /**
   * A minted token's artwork (docs/api/nft.md §4.2 step 3): a generation into the token's deck,
   * whose output is the deck's cover and carries the token's ERC-721 document. A retry after a
   * crash finds the deck made the first time (and its artwork, when it was started).
   */
  async function startArtwork(
    c: CollectionRow,
    m: MintedState,
    userId: string | null,
    variables: Record<string, unknown>,
    opts: {
      requiredMayBeOmitted?: boolean;
      chooser?: Chooser;
      mined?: { blockNumber?: number; blockHash?: Hex };
      dealt?: DealtPosition;
    } = {},
  ): Promise<{ jobId: string; outputId: string; deckId: string }> {
    try {
      return await startArtworkOnce(c, m, userId, variables, opts);
    } catch (err) {
      // Crash repair made the token's deck between the look-up and the insert: start into that deck.
      if (err instanceof AppError && err.extra?.code === 'TOKEN_HAS_DECK') return startArtworkOnce(c, m, userId, variables, opts);
      throw err;
    }
  }

  async function startArtworkOnce(...[c, m, userId, variables, opts = {}]: Parameters<typeof startArtwork>) {
    const gen = needGeneration();
    const existing = await store.findTokenDeck(c.id, m.tokenId);
    // A dealt artwork is started only for a token whose cover is not dealt (services/exact-reveal.ts).
    if (existing?.cover_output_id && !opts.dealt) {
      const out = await store.getOutput(existing.cover_output_id);
      return { jobId: out.job_id ?? '', outputId: out.id, deckId: existing.id };
    }
    // The token's seed: secret ‖ chain ‖ contract ‖ token id ‖ the mint's block hash, once that
    // block is confirmed (docs/fairness.md). Without a fairness port (unit tests) it is random.
    const fairSeed =
      fairness && opts.mined?.blockHash && opts.mined.blockNumber !== undefined
        ? await fairness.seedFor(c, m.tokenId, { blockHash: opts.mined.blockHash, blockNumber: opts.mined.blockNumber })
        : undefined;
    const started = await gen.start({
      collectionId: c.id,
      variables,
      ...(fairSeed ? { fairSeed } : {}),
      userId,
      isService: true, // trusted mint path (mint state); a user's credits are debited by `charged`
      source: 'direct_api',
      jobType: 'mint_generation',
      socialPfp: await minterPfp(m.recipient, userId),
      ...(opts.requiredMayBeOmitted ? { requiredMayBeOmitted: true } : {}),
      ...(existing ? { deckId: existing.id } : {}),
      chooser: opts.chooser ?? 'owner',
      ...(opts.dealt ? { dealt: opts.dealt } : {}),
      mintState: { token_id: m.tokenId, tx_hash: m.txHash, recipient: m.recipient, metadata_uri: m.metadataUri },
    });
    if (existing) await store.setMintState(existing.id, m);
    await store.linkCover(started.deckId, started.outputId, tokenMeta(c, m.tokenId));
    return started;
  }

  /** §4.2 backend mint (recipient, chainId, optional outputId) and §4.3 design-stage mint (recipient_address, quantity). */
  async function mint(caller: Caller, collectionId: string, body: MintBody, senderKey: string) {
    const c = await loadForMint(caller, collectionId);
    const recipient = (body.recipient ?? body.recipient_address)!;
    const target = deployed(c, body.chainId);
    if (c.tokens_minted + body.quantity > maxSupplyOf(c)) {
      throw conflict(`max supply exceeded: ${c.tokens_minted} of ${maxSupplyOf(c)} minted, ${body.quantity} more requested`, {
        code: 'MAX_SUPPLY',
      });
    }
    needChain();
    // This route takes no variables (§4.2, §4.3), so the artwork it generates picks every variable,
    // a required one too; checked before the chain is touched, so a refusal spends nothing.
    const artworkOpts = { requiredMayBeOmitted: true };
    if (!body.outputId && generation) generation.checkVariables(c, {}, artworkOpts);
    if (body.outputId && dealtAtReveal(c)) {
      throw invalid(`body.outputId: collection ${c.id} has exact counts: each token's artwork is made from its dealt traits at the reveal`);
    }
    const output = body.outputId ? await store.getOutput(body.outputId) : undefined;
    if (output) {
      if (output.collection_id !== c.id) throw invalid(`body.outputId: output ${output.id} belongs to another collection`);
      // The artwork is someone's output: its owner (or the collection's creator curating it) binds it.
      authorize(caller, 'token.use_output', { ownerId: output.user_id, collectionOwnerId: c.user_id });
      const deck = output.deck_id ? await store.getDeck(output.deck_id) : undefined;
      if (deck?.token_id != null) {
        throw conflict(`body.outputId: output ${output.id} is already the artwork of token ${deck.token_id}`, { code: 'OUTPUT_MINTED' });
      }
    }
    // The seed secret is committed on chain before any token exists (docs/fairness.md).
    await fairness?.ensureCommitted(c);
    const admission = await gate.admit(caller, c, { ...body, recipient, senderKey });
    const res = await mintAdmitted(admission, {
      chainId: target.chainId,
      collection: target.address,
      recipient,
      quantity: body.quantity,
      idempotencyKey: senderKey,
    });
    await store.recordMinted(c.id, res.tokenIds.at(-1)!);
    const deckIds: string[] = [];
    for (const tokenId of res.tokenIds) {
      const m = minted(c, tokenId, res.txHash, res.recipient);
      let deckId: string;
      if (output) {
        const owner = ownerFor(caller) as string;
        deckId =
          output.deck_id ?? (await store.createDeck({ collection_id: c.id, name: tokenDeckName(c.title, tokenId), userId: owner })).id;
        if (await store.setMintState(deckId, m)) await store.linkCover(deckId, output.id, tokenMeta(c, tokenId));
        // A concurrent mint bound the output first: this token still gets a deck (no artwork of its own).
        else deckId = (await store.createMintedDeck({ ...m, collectionId: c.id, title: c.title, userId: owner })).id;
      } else if (dealtAtReveal(c)) {
        deckId = (await store.createMintedDeck({ ...m, collectionId: c.id, title: c.title, userId: ownerFor(caller) })).id;
      } else if (generation) {
        // No artwork given: the token's is generated from the collection (random variables).
        deckId = (await startArtwork(c, m, ownerFor(caller), {}, { ...artworkOpts, mined: res })).deckId;
      } else {
        deckId = (await store.createMintedDeck({ ...m, collectionId: c.id, title: c.title, userId: ownerFor(caller) })).id;
      }
      deckIds.push(deckId);
    }
    return {
      txHash: res.txHash,
      recipient: res.recipient,
      tokenIds: res.tokenIds,
      deckIds,
      metadataUris: res.tokenIds.map((t) => tokenUrl(base, c.id, t)),
    };
  }

  return {
    /**
     * The artwork of a token a collector bought on chain (SaleFacet `Purchase`, followed by
     * services/sale-purchases.ts): the same deck, job and document as a platform mint, with no
     * caller, no credits, and the variables the buyer chose (already limited to choosable ones:
     * `minter` in the receipt; an empty choice is the platform's draw). The seed is the fair one of
     * the purchase's block (docs/fairness.md).
     */
    async startPurchasedArtwork(
      collectionId: string,
      p: { tokenId: number; txHash: string; recipient: string; blockNumber: number; blockHash: Hex },
      variables: Record<string, unknown>,
    ) {
      const c = await store.getCollection(collectionId);
      const m = minted(c, p.tokenId, p.txHash, p.recipient);
      await store.recordMinted(c.id, p.tokenId);
      if (dealtAtReveal(c)) {
        const deck =
          (await store.findTokenDeck(c.id, p.tokenId)) ??
          (await store.createMintedDeck({ ...m, collectionId: c.id, title: c.title, userId: null }));
        return { jobId: '', outputId: '', deckId: deck.id, tokenId: p.tokenId };
      }
      const started = await startArtwork(c, m, null, variables, {
        requiredMayBeOmitted: true,
        chooser: 'minter',
        mined: { blockNumber: p.blockNumber, blockHash: p.blockHash },
      });
      return { ...started, tokenId: p.tokenId };
    },

    /**
     * An exact collection's token at the reveal (services/exact-reveal.ts): its artwork from the
     * values of its deck position (`deck` in the receipt), the fair seed of its mint's block.
     */
    async startDealtArtwork(
      c: CollectionRow,
      t: { tokenId: number; txHash: string; recipient: string },
      values: DeckEntry,
      dealt: DealtPosition,
      mined: { blockNumber: number; blockHash: Hex },
    ) {
      const m = minted(c, t.tokenId, t.txHash, t.recipient);
      return startArtwork(c, m, null, values, { requiredMayBeOmitted: true, chooser: 'deck', mined, dealt });
    },

    /** The minted tokens of a collection, by token id (404 for an unknown collection). */
    async listMints(collectionId: string) {
      await store.getCollection(collectionId);
      return store.listMints(collectionId);
    },
    mintStatus: (deckId: string) => store.deckWithArtwork(deckId),

    /** Mints one token and starts its artwork: the deck carries the mint state, the output becomes its cover. */
    async mintAndGenerate(
      caller: Caller,
      collectionId: string,
      body: { recipient: string; variables: Record<string, unknown>; chainId?: number; tx_hash?: string; merkle_proof?: string[] },
      senderKey: string,
    ) {
      const c = await loadForMint(caller, collectionId);
      const target = deployed(c, body.chainId);
      if (dealtAtReveal(c)) {
        throw conflict(
          `collection ${c.id} has exact counts: its traits are dealt at the reveal, so mint with POST /nft/collections/${c.id}/mint (docs/fairness.md "Exact counts")`,
          { code: 'EXACT_COUNTS' },
        );
      }
      needChain();
      const gen = needGeneration();
      // A public minter chooses only selectable and customizable variables (docs/fairness.md).
      const chooser = chooserOf(caller, c);
      gen.checkVariables(c, body.variables, { publicMinter: chooser === 'minter' });
      if (c.tokens_minted >= maxSupplyOf(c)) {
        throw conflict(`collection ${c.id} is sold out: ${c.tokens_minted} of ${maxSupplyOf(c)} minted`, { code: 'MAX_SUPPLY' });
      }
      // The artwork's credits first (refunded if the mint fails), then the gate, then the chain.
      return charged(caller, async () => {
        await fairness?.ensureCommitted(c);
        const admission = await gate.admit(caller, c, {
          recipient: body.recipient,
          quantity: 1,
          tx_hash: body.tx_hash,
          merkle_proof: body.merkle_proof,
          senderKey,
        });
        const res = await mintAdmitted(admission, {
          chainId: target.chainId,
          collection: target.address,
          recipient: body.recipient,
          quantity: 1,
          idempotencyKey: senderKey,
        });
        const tokenId = res.tokenIds[0]!;
        await store.recordMinted(c.id, tokenId);
        const m = minted(c, tokenId, res.txHash, res.recipient);
        const userId = ownerFor(caller);

        const started = await startArtwork(c, m, userId, body.variables, { chooser, mined: res });
        return { mint: { ...m, deckId: started.deckId }, generation: started };
      });
    },

    mint,

    /**
     * §4.3 per-token mint. Token ids are sequential on chain, so this mints the next id and refuses
     * (409 NOT_NEXT_TOKEN) when `tokenId` is not that id. Two callers racing for one id: the chain
     * gives it to one; the other's result carries the ids it really got.
     */
    async mintToken(caller: Caller, collectionId: string, tokenId: number, body: MintBody, senderKey: string) {
      const c = await loadForMint(caller, collectionId);
      const next = c.tokens_minted + 1;
      if (tokenId !== next) {
        throw conflict(`token ids are minted in order: the next token id of collection ${c.id} is ${next}, not ${tokenId}`, {
          code: 'NOT_NEXT_TOKEN',
          next_token_id: next,
        });
      }
      return mint(caller, collectionId, body, senderKey);
    },

    /** §4.3 generate: new artwork for a minted token; it becomes the token's cover when it completes. */
    async regenerate(caller: Caller, collectionId: string, body: { token_id: number; generation_overrides: Record<string, unknown> }) {
      const c = await store.getCollection(collectionId);
      authorize(caller, 'token.regenerate', { ownerId: c.user_id });
      if (dealtAtReveal(c)) {
        throw conflict(`collection ${c.id} has exact counts: a token's artwork follows its dealt traits and is not regenerated`, {
          code: 'EXACT_COUNTS',
        });
      }
      const deck = await store.findTokenDeck(c.id, body.token_id);
      if (!deck || !deck.mint_status) throw notFound(`token ${body.token_id} of collection ${c.id}`);
      const gen = needGeneration();
      gen.checkVariables(c, body.generation_overrides);
      const pfp = deck.mint_recipient ? await minterPfp(deck.mint_recipient, ownerFor(caller)) : null;
      const userId = ownerFor(caller);
      // Charged to a user (the owner), never to the operator (docs/jobs.md "Credits").
      const started = await charged(caller, () =>
        gen.start({
          collectionId: c.id,
          variables: body.generation_overrides,
          userId,
          isService: true,
          deckId: deck.id,
          source: 'direct_api',
          jobType: 'token_generation',
          socialPfp: pfp,
          chooser: 'owner',
        }),
      );
      await store.linkCover(deck.id, started.outputId, tokenMeta(c, body.token_id));
      onTokenChanged?.(c.id, body.token_id);
      return {
        token_id: body.token_id,
        metadata_uri: deck.metadata_uri ?? tokenUrl(base, c.id, body.token_id),
        job_id: started.jobId,
        output_id: started.outputId,
        deck_id: deck.id,
      };
    },
  };
}
