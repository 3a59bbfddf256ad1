/**
 * Minting and samples (nft-service.md §2.5, §2.9, §3 Minting, §4.1.2, §4.2, §4.3). Decisions:
 * docs/minting.md.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getAddress, type Address, type Hex } from 'viem';
import { z } from 'zod';
import { mintTokens, type MintingChainAccess } from '../../chain/mint.ts';
import { verifyPayment } from '../../chain/payments.ts';
import { assertCanModify, getCollection, type CollectionRow } from '../../db/collections.ts';
import { createDeck } from '../../db/decks.ts';
import { beginIdempotent, finishIdempotent, releaseIdempotent, requestHash } from '../../db/idempotency.ts';
import {
  avatarOfUser,
  avatarOfWallet,
  createMintedDeck,
  findTokenDeck,
  linkCover,
  listMints,
  listTokens,
  mintStatus,
  recordMinted,
  setMintState,
} from '../../db/minting.ts';
import { getOutput } from '../../db/outputs.ts';
import {
  allowanceUsage,
  claimPayment,
  endPaymentLease,
  insertSamples,
  listSamples,
  paidSampleCount,
  releasePayment,
  resumablePayment,
  returnFreeSamples,
  takeFreeSamples,
} from '../../db/samples.ts';
import { AppError, conflict, invalid, notFound } from '../../domain/errors.ts';
import { mintTokenMetadata, tokenUrl, type Attribute } from '../../domain/metadata.ts';
import { paymentError } from '../../domain/payment-errors.ts';
import { resolveVariables, VariableError } from '../../domain/variables.ts';
import { loadGenerationData } from '../../generation/pipeline.ts';
import { startGeneration, type GenerationContext, type StartGenerationResult } from '../../services/generation.ts';
import { address, ok, queryInt, txHash, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';
import { isTrusted } from './collections.ts';

export interface MintingDeps {
  /**
   * Chain access for mints and payment checks; default: the backend's ChainServices (`chain`),
   * which fits this interface. Neither → 503.
   */
  mintingChain?: MintingChainAccess;
}

const DEV_CHAIN_ID = 31337;
const variablesSchema = z.record(z.string(), z.unknown());

const samplesBody = z.object({
  count: z
    .number({ message: 'expected an integer from 1 to 10' })
    .int('expected an integer from 1 to 10')
    .min(1, 'count must be 1 to 10')
    .max(10, 'count must be 1 to 10'),
  wallet_address: address,
  chain_id: z.number().int().positive().optional(),
  variables: variablesSchema.optional(),
  tx_hash: txHash.optional(),
});
const mintAndGenerateBody = z.object({
  recipient: address,
  variables: variablesSchema.default({}),
  chainId: z.number().int().positive().optional(),
});
/** One path, two spec bodies (§4.2 backend mint, §4.3 design-stage mint): both are accepted. */
const mintBody = z
  .object({
    recipient: address.optional(),
    recipient_address: address.optional(),
    chainId: z.number().int().positive().optional(),
    outputId: uuid.optional(),
    quantity: z.number().int().min(1, 'quantity must be 1 to 100').max(100, 'quantity must be 1 to 100').default(1),
  })
  .refine((b) => b.recipient || b.recipient_address, { message: 'recipient (or recipient_address) is required', path: ['recipient'] })
  .refine((b) => !b.outputId || b.quantity === 1, { message: 'outputId links one token: quantity must be 1', path: ['outputId'] });
const designGenerateBody = z.object({
  token_id: z.number().int().min(1),
  generation_overrides: variablesSchema.default({}),
});
const tokensQuery = z.object({ page: queryInt(1, 1_000_000).default(1), limit: queryInt(1, 100).default(50) });
const walletQuery = z.object({ wallet_address: address.optional() });
const collectionIdParams = z.object({ collectionId: uuid });
const deckIdParams = z.object({ deckId: uuid });

/** Backend 4.2 sample routes answer `{success, …}`; the envelope's `data` carries the same fields for clients of the envelope. */
const spec = <T extends Record<string, unknown>>(fields: T) => ({ success: true, ...fields, data: fields, error: null });

function caller(req: FastifyRequest) {
  return { userId: req.auth.userId, isService: isTrusted(req.auth.method) };
}

/** Checks the variables against the collection before anything is spent (chain, allowance, payment). */
function checkVariables(c: CollectionRow, variables: Record<string, unknown>) {
  const data = loadGenerationData(c.id, c.data);
  try {
    resolveVariables(data, variables, { seed: 0 });
  } catch (err) {
    if (err instanceof VariableError) throw invalid(`body.${err.field}: ${err.message}`, { code: err.code });
    throw err;
  }
}

/** The collection's deployment; a `chainId` the caller names must be the one it is deployed on. */
function deployed(c: CollectionRow, chainId?: number): { chainId: number; address: Address } {
  if (!c.contract_address || c.chain_id === null) {
    throw conflict(`collection ${c.id} is not deployed: deploy it before minting`, { code: 'NOT_DEPLOYED' });
  }
  if (chainId !== undefined && chainId !== c.chain_id) {
    throw invalid(`body.chainId: collection ${c.id} is deployed on chain ${c.chain_id}, not ${chainId}`);
  }
  return { chainId: c.chain_id, address: getAddress(c.contract_address) };
}

const maxSupplyOf = (c: CollectionRow) => c.max_supply ?? c.editions;

export function mintingRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const db = deps.database.db;
  const base = deps.metadataBaseUrl;

  const chain = (): MintingChainAccess => {
    const access = deps.mintingChain ?? (deps as { chain?: MintingChainAccess }).chain;
    if (!access) throw new AppError('unavailable', 'chain operations are not available: this backend has no chain configured');
    return access;
  };
  const genCtx = (): GenerationContext => {
    if (!deps.jobQueue) throw new AppError('unavailable', 'generation is not available: this backend has no job queue configured');
    return { db, config: deps.config, queue: deps.jobQueue, ...(deps.storage ? { storage: deps.storage } : {}) };
  };

  /** Runs `run` once per (route, caller, Idempotency-Key); repeats get the stored response. */
  async function idempotent(
    req: FastifyRequest,
    reply: FastifyReply,
    route: string,
    run: (senderKey: string) => Promise<{ statusCode: number; body: unknown }>,
  ) {
    const raw = req.headers['idempotency-key'];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (key === undefined) {
      const res = await run(`${route}:${randomUUID()}`);
      return reply.code(res.statusCode).send(res.body);
    }
    if (!/^[\x21-\x7e]{1,200}$/.test(key)) throw invalid('header.idempotency-key: 1 to 200 visible ASCII characters');
    const scope = `${route}:${req.auth.method}:${req.auth.userId ?? '-'}`;
    const hash = requestHash({ params: req.params, body: req.body });
    const stored = await beginIdempotent(db, scope, key, hash);
    if (stored) return reply.code(stored.statusCode).header('idempotent-replayed', 'true').send(stored.body);
    try {
      // The sender key makes the chain write single even when this row is released and retried.
      const res = await run(`${scope}:${key}`);
      await finishIdempotent(db, scope, key, hash, res);
      return reply.code(res.statusCode).send(res.body);
    } catch (err) {
      await releaseIdempotent(db, scope, key).catch(() => undefined);
      throw err;
    }
  }

  const minterPfp = async (recipient: string, userId: string | null) =>
    (await avatarOfWallet(db, recipient)) ?? (await avatarOfUser(db, userId));
  const tokenMeta = (c: CollectionRow, tokenId: number) => (traits: unknown) =>
    mintTokenMetadata({
      collection: c,
      tokenId,
      metadataBaseUrl: base,
      attributes: Array.isArray(traits) ? (traits as Attribute[]) : [],
    });

  // ---------------------------------------------------------------------------------------------
  // Mint and generate (§3 Minting, §4.1 mint, §4.2)
  // ---------------------------------------------------------------------------------------------

  async function mintAndGenerate(req: FastifyRequest, collectionId: string, body: z.infer<typeof mintAndGenerateBody>, senderKey: string) {
    const who = caller(req);
    const c = await getCollection(db, collectionId);
    const target = deployed(c, body.chainId);
    const access = chain();
    const ctx = genCtx();
    checkVariables(c, body.variables);
    if (c.tokens_minted >= maxSupplyOf(c))
      throw conflict(`collection ${c.id} is sold out: ${c.tokens_minted} of ${maxSupplyOf(c)} minted`, { code: 'MAX_SUPPLY' });

    const minted = await mintTokens(access, {
      chainId: target.chainId,
      collection: target.address,
      recipient: body.recipient,
      quantity: 1,
      idempotencyKey: senderKey,
    });
    const tokenId = minted.tokenIds[0]!;
    await recordMinted(db, c.id, tokenId);
    const metadataUri = tokenUrl(base, c.id, tokenId);
    const mint = { tokenId, txHash: minted.txHash, recipient: minted.recipient, metadataUri };

    // A retry after a crash between the mint and here finds the deck made the first time.
    const existing = await findTokenDeck(db, c.id, tokenId);
    let gen: StartGenerationResult;
    if (existing?.cover_output_id) {
      const out = await getOutput(db, existing.cover_output_id);
      gen = { jobId: out.job_id ?? '', outputId: out.id, deckId: existing.id };
    } else {
      gen = await startGeneration(ctx, {
        collectionId: c.id,
        variables: body.variables,
        userId: who.userId,
        isService: true, // the mint pays for the artwork: no credits are charged
        source: 'direct_api',
        jobType: 'mint_generation',
        socialPfp: await minterPfp(minted.recipient, who.userId),
        ...(existing ? { deckId: existing.id } : {}),
        mintState: { token_id: tokenId, tx_hash: minted.txHash, recipient: minted.recipient, metadata_uri: metadataUri },
      });
      if (existing) await setMintState(db, existing.id, { tokenId, txHash: minted.txHash, recipient: minted.recipient, metadataUri });
      await linkCover(db, gen.deckId, gen.outputId, tokenMeta(c, tokenId));
    }
    return {
      statusCode: 201,
      body: ok({
        mint: { ...mint, deckId: gen.deckId },
        generation: { jobId: gen.jobId, outputId: gen.outputId, deckId: gen.deckId, status: 'generating' },
      }),
    };
  }

  r.post(
    '/nft/collections/:collectionId/mint-and-generate',
    { schema: { params: collectionIdParams, body: mintAndGenerateBody, tags: ['minting'] } },
    (req, reply) => idempotent(req, reply, 'mint-and-generate', (key) => mintAndGenerate(req, req.params.collectionId, req.body, key)),
  );

  /** §4.2 backend mint (recipient, chainId, optional outputId) and §4.3 design-stage mint (recipient_address, quantity). */
  async function mint(req: FastifyRequest, collectionId: string, body: z.infer<typeof mintBody>, senderKey: string) {
    const who = caller(req);
    const c = await getCollection(db, collectionId);
    const target = deployed(c, body.chainId);
    const recipient = (body.recipient ?? body.recipient_address)!;
    if (c.tokens_minted + body.quantity > maxSupplyOf(c)) {
      throw conflict(`max supply exceeded: ${c.tokens_minted} of ${maxSupplyOf(c)} minted, ${body.quantity} more requested`, {
        code: 'MAX_SUPPLY',
      });
    }
    let output;
    if (body.outputId) {
      output = await getOutput(db, body.outputId);
      if (output.collection_id !== c.id) throw invalid(`body.outputId: output ${output.id} belongs to another collection`);
    }
    const minted = await mintTokens(chain(), {
      chainId: target.chainId,
      collection: target.address,
      recipient,
      quantity: body.quantity,
      idempotencyKey: senderKey,
    });
    await recordMinted(db, c.id, minted.tokenIds.at(-1)!);
    const deckIds: string[] = [];
    for (const tokenId of minted.tokenIds) {
      const m = { tokenId, txHash: minted.txHash, recipient: minted.recipient, metadataUri: tokenUrl(base, c.id, tokenId) };
      let deckId: string;
      if (output) {
        deckId =
          output.deck_id ??
          (await createDeck(db, { collection_id: c.id, name: `${c.title} #${tokenId}`, userId: who.userId as string })).id;
        await setMintState(db, deckId, m);
        await linkCover(db, deckId, output.id, tokenMeta(c, tokenId));
      } else {
        deckId = (await createMintedDeck(db, { collectionId: c.id, title: c.title, userId: who.userId, ...m })).id;
      }
      deckIds.push(deckId);
    }
    const first = minted.tokenIds[0]!;
    return {
      statusCode: 201,
      body: ok({
        tokenId: first,
        txHash: minted.txHash,
        recipient: minted.recipient,
        deckId: deckIds[0],
        metadataUri: tokenUrl(base, c.id, first),
        tx_hash: minted.txHash,
        token_ids: minted.tokenIds,
        deck_ids: deckIds,
      }),
    };
  }

  r.post(
    '/nft/collections/:collectionId/mint',
    { schema: { params: collectionIdParams, body: mintBody, tags: ['minting'] } },
    (req, reply) => idempotent(req, reply, 'mint', (key) => mint(req, req.params.collectionId, req.body, key)),
  );

  /**
   * §4.3 per-token mint. Token ids are sequential on chain (docs/contracts.md), so this mints the
   * next id and refuses (409) when :tokenId is not that id: the caller learns the id it will get.
   * Two callers racing for the same id: the chain gives it to one, and the other's response
   * carries the ids it really got (token_ids), with the checked id in requested_token_id.
   */
  r.post(
    '/nft/collections/:collectionId/tokens/:tokenId/mint',
    {
      schema: {
        params: collectionIdParams.extend({ tokenId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }),
        body: mintBody,
        tags: ['minting'],
      },
    },
    async (req, reply) => {
      const c = await getCollection(db, req.params.collectionId);
      const next = c.tokens_minted + 1;
      if (req.params.tokenId !== next) {
        throw conflict(`token ids are minted in order: the next token id of collection ${c.id} is ${next}, not ${req.params.tokenId}`, {
          code: 'NOT_NEXT_TOKEN',
          next_token_id: next,
        });
      }
      return idempotent(req, reply, 'token-mint', async (key) => {
        const res = await mint(req, req.params.collectionId, req.body, key);
        (res.body.data as Record<string, unknown>).requested_token_id = req.params.tokenId;
        return res;
      });
    },
  );

  r.get('/nft/decks/:deckId/mint-status', { schema: { params: deckIdParams, tags: ['minting'] } }, async (req) =>
    ok(await mintStatus(db, req.params.deckId)),
  );

  r.get('/nft/collections/:collectionId/mints', { schema: { params: collectionIdParams, tags: ['minting'] } }, async (req) => {
    await getCollection(db, req.params.collectionId);
    return ok({ mints: await listMints(db, req.params.collectionId) });
  });

  r.get(
    '/nft/collections/:collectionId/tokens',
    { schema: { params: collectionIdParams, querystring: tokensQuery, tags: ['minting'] } },
    async (req) => {
      await getCollection(db, req.params.collectionId);
      return ok(await listTokens(db, req.params.collectionId, req.query.page, req.query.limit));
    },
  );

  /** §4.3 generate: new artwork for a minted token; it becomes the token's cover when it completes. */
  r.post(
    '/nft/collections/:collectionId/generate',
    { schema: { params: collectionIdParams, body: designGenerateBody, tags: ['minting'] } },
    async (req, reply) => {
      const who = caller(req);
      const c = await getCollection(db, req.params.collectionId);
      assertCanModify(c, who);
      const deck = await findTokenDeck(db, c.id, req.body.token_id);
      if (!deck || !deck.mint_status) throw notFound(`token ${req.body.token_id} of collection ${c.id}`);
      checkVariables(c, req.body.generation_overrides);
      const gen = await startGeneration(genCtx(), {
        collectionId: c.id,
        variables: req.body.generation_overrides,
        userId: who.userId,
        isService: true,
        deckId: deck.id,
        source: 'direct_api',
        jobType: 'token_generation',
        socialPfp: deck.mint_recipient ? await minterPfp(deck.mint_recipient, who.userId) : null,
      });
      await linkCover(db, deck.id, gen.outputId, tokenMeta(c, req.body.token_id));
      deps.metadataCache?.invalidate(c.id, req.body.token_id);
      return reply.code(202).send(
        ok({
          token_id: req.body.token_id,
          metadata_uri: deck.metadata_uri ?? tokenUrl(base, c.id, req.body.token_id),
          asset_uri: null,
          job_id: gen.jobId,
          output_id: gen.outputId,
          deck_id: deck.id,
          status: 'generating',
        }),
      );
    },
  );

  // ---------------------------------------------------------------------------------------------
  // Samples (§2.9, §4.1.2)
  // ---------------------------------------------------------------------------------------------

  const subjectOf = (req: FastifyRequest, wallet: string | undefined) =>
    req.auth.userId ? `user:${req.auth.userId}` : wallet ? `wallet:${wallet.toLowerCase()}` : null;

  function paymentSettings(chainId: number) {
    const cfg = deps.config;
    const access = chain();
    const token = cfg.STABLECOIN_ADDRESS ?? (access.deployment?.(chainId)?.contracts?.Stablecoin as string | undefined);
    if (!token) throw new AppError('unavailable', `paid samples are not available on chain ${chainId}: set STABLECOIN_ADDRESS`);
    const recipient = cfg.COMPUTE_RECIPIENT_ADDRESS ?? (chainId === DEV_CHAIN_ID ? access.walletAddress?.(chainId) : undefined);
    if (!recipient) throw new AppError('unavailable', `paid samples are not available on chain ${chainId}: set COMPUTE_RECIPIENT_ADDRESS`);
    const confirmations = cfg.SAMPLE_PAYMENT_CONFIRMATIONS ?? (chainId === DEV_CHAIN_ID ? 1 : 3);
    return { token: getAddress(token), recipient: getAddress(recipient), confirmations, access };
  }

  async function sampleStatus(c: CollectionRow, subject: string | null) {
    const used = await allowanceUsage(db, c.id, subject ?? '-');
    const collectionLeft = Math.max(0, c.free_samples_per_collection - used.collection);
    const userLeft = subject ? Math.max(0, c.free_samples_per_user - used.user) : c.free_samples_per_user;
    return {
      free_remaining: Math.min(collectionLeft, userLeft),
      free_limit_per_collection: c.free_samples_per_collection,
      paid_count: await paidSampleCount(db, c.id),
      compute_cost_per_sample: Number(c.compute_cost_per_sample),
      free_used_collection: used.collection,
      free_limit_per_user: c.free_samples_per_user,
      free_used_user: subject ? used.user : 0,
    };
  }

  r.post(
    '/nft/collections/:collectionId/samples',
    { schema: { params: collectionIdParams, body: samplesBody, tags: ['samples'] } },
    async (req, reply) => {
      const b = req.body;
      const c = await getCollection(db, req.params.collectionId);
      const variables = b.variables ?? {};
      checkVariables(c, variables);
      const ctx = genCtx(); // 503 before anything is taken
      const subject = subjectOf(req, b.wallet_address)!;
      const cost = BigInt(c.compute_cost_per_sample);
      let paymentId: string | null = null;
      let resumed: Awaited<ReturnType<typeof resumablePayment>>;
      const isFree = !b.tx_hash;
      if (isFree) {
        const taken = await takeFreeSamples(db, c.id, subject, b.count, {
          perCollection: c.free_samples_per_collection,
          perUser: c.free_samples_per_user,
        });
        if (!taken) {
          const status = await sampleStatus(c, subject);
          throw paymentError(
            'PAYMENT_REQUIRED',
            `body.tx_hash: ${status.free_remaining} free sample(s) remain for this request and ${b.count} were asked; pay ${BigInt(b.count) * cost} stablecoin units (count × compute_cost_per_sample) to the compute recipient and send tx_hash, or ask for fewer`,
            {
              free_remaining: status.free_remaining,
              amount_due: (BigInt(b.count) * cost).toString(),
              compute_cost_per_sample: status.compute_cost_per_sample,
            },
          );
        }
      } else {
        const chainId = b.chain_id ?? c.chain_id ?? deps.config.NFT_CHAIN_ID;
        const s = paymentSettings(chainId);
        // A claim whose request died before all its samples existed is resumed by the same payer
        // for the same collection and count; any other reuse is 409 (docs/minting.md).
        resumed = await resumablePayment(db, {
          chainId,
          txHash: b.tx_hash!,
          payer: getAddress(b.wallet_address),
          collectionId: c.id,
          count: b.count,
        });
        if (resumed) {
          paymentId = resumed.id;
        } else {
          const verified = await verifyPayment(s.access.client(chainId), {
            chainId,
            txHash: b.tx_hash as Hex,
            token: s.token,
            payer: getAddress(b.wallet_address),
            recipient: s.recipient,
            minAmount: BigInt(b.count) * cost,
            confirmations: s.confirmations,
          });
          paymentId = await claimPayment(db, verified, c.id, b.count);
        }
      }

      const pfp = await avatarOfUser(db, c.user_id); // the creator's picture at sample time
      const need = b.count - (resumed?.existing.length ?? 0);
      const started: StartGenerationResult[] = [];
      try {
        const deckId =
          resumed?.deckId ??
          (await createDeck(db, { collection_id: c.id, name: `Samples of ${c.title}`.slice(0, 200), userId: req.auth.userId as string }))
            .id;
        for (let i = 0; i < need; i++) {
          const g = await startGeneration(ctx, {
            collectionId: c.id,
            variables,
            userId: req.auth.userId,
            isService: true, // samples are paid by the allowance or the payment, not credits
            deckId,
            source: 'direct_api',
            jobType: 'sample',
            socialPfp: pfp,
          });
          // Each sample row right after its generation: a crash loses at most the one in between.
          await insertSamples(db, [
            {
              collection_id: c.id,
              output_id: g.outputId,
              job_id: g.jobId,
              user_id: req.auth.userId,
              wallet_address: getAddress(b.wallet_address),
              is_free: isFree,
              payment_id: paymentId,
              traits: [],
            },
          ]);
          started.push(g);
        }
      } catch (err) {
        if (isFree && started.length < need) await returnFreeSamples(db, c.id, subject, need - started.length).catch(() => undefined);
        if (paymentId && !resumed && started.length === 0) await releasePayment(db, paymentId).catch(() => undefined);
        else if (paymentId) await endPaymentLease(db, paymentId).catch(() => undefined);
        if (started.length === 0) throw err;
        req.log.error({ err }, 'some samples could not start');
      }
      if (paymentId) await endPaymentLease(db, paymentId).catch(() => undefined);
      const all = [...(resumed?.existing ?? []), ...started.map((g) => ({ outputId: g.outputId, jobId: g.jobId }))];
      return reply.code(201).send(
        spec({
          samples: all.map((g) => ({ outputId: g.outputId, jobId: g.jobId, status: 'pending', is_free: isFree })),
          ...(resumed ? { resumed: true } : {}),
        }),
      );
    },
  );

  r.get(
    '/nft/collections/:collectionId/samples',
    { schema: { params: collectionIdParams, querystring: walletQuery, tags: ['samples'] } },
    async (req) => spec({ samples: await listSamples(db, req.params.collectionId, { wallet: req.query.wallet_address }) }),
  );

  r.get(
    '/nft/collections/:collectionId/sample-status',
    { schema: { params: collectionIdParams, querystring: walletQuery, tags: ['samples'] } },
    async (req) => {
      const c = await getCollection(db, req.params.collectionId);
      return spec(await sampleStatus(c, subjectOf(req, req.query.wallet_address)));
    },
  );
}
