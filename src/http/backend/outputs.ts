/** Backend output routes (content-service.md §4.1, without develop): create, complete, fail, hide, get, move, list, stats. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { assertCanModifyDeck, getDeck, type Caller } from '../../db/decks.ts';
import {
  assertCanModifyOutput,
  canModifyOutput,
  collectionOutputStats,
  completeOutput,
  createOutput,
  failOutput,
  getOutput,
  hideOutput,
  listCollectionOutputs,
  moveOutput,
  OUTPUT_SOURCES,
  outputDetail,
  presentOutput,
  setThumbnail,
} from '../../db/outputs.ts';
import { invalid, notFound } from '../../domain/errors.ts';
import { makeThumbnail } from '../../storage/thumbnails.ts';
import { requireUser } from '../plugins/auth.ts';
import { collectionIdParams, idParams, ok, queryInt, socialOrg, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

export const socialIdentifier = z.string().trim().min(1).max(255);
const togetherRule = {
  message: 'social_org and social_identifier go together',
  path: ['social_identifier'],
};
const together = (b: { social_org?: unknown; social_identifier?: unknown }) =>
  (b.social_org === undefined) === (b.social_identifier === undefined);

/** An http(s) URL, or a storage path such as /upload-base64 returns. */
export const urlOrPath = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((v) => {
    if (/^https?:\/\//i.test(v)) return URL.canParse(v);
    return !/^[a-z][a-z0-9+.-]*:/i.test(v) && !/\s/.test(v) && !v.split('/').includes('..');
  }, 'expected an http(s) URL or a storage path');
const mimeType = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z]+\/[a-z0-9.+-]+$/, 'expected a MIME type such as image/png');
const metadata = z.record(z.string(), z.unknown());

const createBody = z
  .object({
    collection_id: uuid,
    job_id: z.string().trim().min(1).max(200).optional(),
    source: z.enum(OUTPUT_SOURCES).optional(),
    input_metadata: metadata.optional(),
    social_org: socialOrg.optional(),
    social_identifier: socialIdentifier.optional(),
    deck_id: uuid.nullish(),
    auto_create_deck: z.boolean().default(true),
  })
  .refine(together, togetherRule);

const completeBody = z.object({
  url: urlOrPath,
  mime_type: mimeType.optional(),
  thumbnail_url: urlOrPath.optional(),
  flat_file_id: z.number().int().positive().optional(),
  output_metadata: metadata.optional(),
});

const failBody = z.object({ error_message: z.string().max(10_000).optional() }).nullish();
const moveBody = z.object({ deck_id: uuid.nullable() });

const listQuery = z
  .object({
    deck_id: uuid.optional(),
    status: z.enum(['pending', 'processing', 'completed', 'failed']).optional(),
    social_org: socialOrg.optional(),
    social_identifier: socialIdentifier.optional(),
    limit: queryInt(1, 500).optional(),
    offset: queryInt(0, 1_000_000).optional(),
  })
  .refine(together, togetherRule);

/** 401 before validation: a caller without user_id learns that first (content-service.md §5.1). */
export const needUser = async (req: FastifyRequest) => {
  requireUser(req);
};

export const callerOf = (req: FastifyRequest): Caller => ({ userId: requireUser(req), isService: req.caller.kind === 'service' });

export function outputRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const tags = ['outputs'];

  r.post('/outputs', { preValidation: needUser, schema: { body: createBody, tags } }, async (req, reply) => {
    const caller = callerOf(req);
    const body = req.body;
    if (body.deck_id) {
      const deck = await getDeck(db, body.deck_id);
      await assertCanModifyDeck(db, deck, caller);
    }
    const row = await createOutput(db, {
      collection_id: body.collection_id,
      job_id: body.job_id,
      source: body.source,
      input_metadata: body.input_metadata,
      social_org: body.social_org,
      social_identifier: body.social_identifier,
      deck_id: body.deck_id ?? undefined,
      auto_create_deck: body.auto_create_deck,
      userId: caller.userId!,
    });
    return reply.code(201).send(ok(presentOutput(row)));
  });

  r.patch('/outputs/:id/complete', { preValidation: needUser, schema: { params: idParams, body: completeBody, tags } }, async (req) => {
    const caller = callerOf(req);
    await assertCanModifyOutput(db, await getOutput(db, req.params.id), caller);
    let row = await completeOutput(db, req.params.id, req.body);
    if (deps.storage && row.url && !row.thumbnail_url) {
      try {
        const thumb = await makeThumbnail(deps.storage, row.id, row.url, row.mime_type);
        if (thumb) {
          await setThumbnail(db, row.id, thumb);
          row = { ...row, thumbnail_url: thumb };
        }
      } catch (err) {
        // The output is complete either way; a thumbnail failure is logged, not returned.
        req.log.warn({ err, outputId: row.id }, 'thumbnail failed');
      }
    }
    return ok({
      id: row.id,
      status: row.status,
      url: row.url,
      mime_type: row.mime_type,
      thumbnail_url: row.thumbnail_url,
      completed_at: row.completed_at?.toISOString() ?? null,
    });
  });

  r.patch('/outputs/:id/fail', { preValidation: needUser, schema: { params: idParams, body: failBody, tags } }, async (req) => {
    const caller = callerOf(req);
    await assertCanModifyOutput(db, await getOutput(db, req.params.id), caller);
    const row = await failOutput(db, req.params.id, req.body?.error_message);
    return ok({ id: row.id, status: row.status, error_message: row.error_message });
  });

  r.delete('/outputs/:id', { preValidation: needUser, schema: { params: idParams, tags } }, async (req) => {
    const caller = callerOf(req);
    await assertCanModifyOutput(db, await getOutput(db, req.params.id), caller);
    const row = await hideOutput(db, req.params.id);
    return ok({ id: row.id, status: row.status });
  });

  r.get('/outputs/:id', { preValidation: needUser, schema: { params: idParams, tags } }, async (req) => {
    const caller = callerOf(req);
    const { row, view } = await outputDetail(db, req.params.id);
    // Hidden outputs are gone from user-facing views, except for whoever may change them.
    if (row.status === 'hidden' && !(await canModifyOutput(db, row, caller))) throw notFound(`output ${row.id}`);
    return ok(view);
  });

  r.patch('/outputs/:id/deck', { preValidation: needUser, schema: { params: idParams, body: moveBody, tags } }, async (req) => {
    const caller = callerOf(req);
    const output = await getOutput(db, req.params.id);
    await assertCanModifyOutput(db, output, caller);
    const target = req.body.deck_id;
    if (target) {
      const deck = await getDeck(db, target);
      if (deck.collection_id !== output.collection_id) {
        throw invalid(`body.deck_id: deck ${target} belongs to another collection`);
      }
      await assertCanModifyDeck(db, deck, caller);
    }
    const row = await moveOutput(db, output.id, target);
    return ok({ id: row.id, deck_id: row.deck_id });
  });

  r.get(
    '/collections/:collectionId/outputs',
    { preValidation: needUser, schema: { params: collectionIdParams, querystring: listQuery, tags } },
    async (req) => {
      requireUser(req);
      const q = req.query;
      const rows = await listCollectionOutputs(db, req.params.collectionId, {
        ...q,
        limit: q.limit ?? 50,
        offset: q.offset ?? 0,
      });
      return ok(rows);
    },
  );

  r.get(
    '/collections/:collectionId/outputs/stats',
    { preValidation: needUser, schema: { params: collectionIdParams, tags } },
    async (req) => {
      requireUser(req);
      return ok(await collectionOutputStats(db, req.params.collectionId));
    },
  );
}
