/**
 * Develop (content-service.md §4.1, §3 Output): transform a completed output with a global
 * collection (for example image to video). POST /outputs/:id/develop, GET /outputs/develop/collections.
 * The new output joins the source's deck (so it belongs to the source's collection) and is
 * generated from the global collection's data through the generation pipeline, with the source's
 * URL as reference image `ref_image_1`. Decisions in docs/jobs.md.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { getCollection } from '../../db/collections.ts';
import { assertCanModifyOutput, getOutput } from '../../db/outputs.ts';
import { collections } from '../../db/schema/index.ts';
import { AppError, conflict, invalid } from '../../domain/errors.ts';
import { startGeneration } from '../../generation/pipeline.ts';
import { idParams, ok, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';
import { callerOf, needUser } from './outputs.ts';

const INPUT_TYPES = ['image', 'video', 'text'] as const;
const developBody = z.object({ collection_id: uuid, variables: z.record(z.string(), z.unknown()).optional() });
const listQuery = z.object({ input_type: z.enum(INPUT_TYPES).optional() });

/** image/png → image, video/mp4 → video, text/plain → text. */
export function mediaKind(mime: string | null): string | null {
  const top = mime?.split('/')[0];
  return top === 'image' || top === 'video' || top === 'text' ? top : null;
}

export function developRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const tags = ['outputs'];

  r.get('/outputs/develop/collections', { preValidation: needUser, schema: { querystring: listQuery, tags } }, async (req) => {
    const rows = await db
      .select()
      .from(collections)
      .where(and(eq(collections.is_global, true), req.query.input_type ? eq(collections.input_type, req.query.input_type) : undefined))
      .orderBy(asc(collections.title));
    return ok(
      rows.map((c) => ({
        id: c.id,
        title: c.title,
        description: c.description,
        input_type: c.input_type,
        output_type: c.output_type,
        cover_image_url: c.cover_image_url,
      })),
    );
  });

  r.post('/outputs/:id/develop', { preValidation: needUser, schema: { params: idParams, body: developBody, tags } }, async (req, reply) => {
    const caller = callerOf(req);
    const source = await getOutput(db, req.params.id);
    await assertCanModifyOutput(db, source, caller);
    if (source.status !== 'completed' || !source.url)
      throw conflict(`output ${source.id} is ${source.status}: only completed outputs can be developed`);
    const target = await getCollection(db, req.body.collection_id);
    if (!target.is_global) throw invalid(`body.collection_id: collection ${target.id} is not a global collection`);
    const kind = mediaKind(source.mime_type);
    if (target.input_type && kind !== target.input_type) {
      throw invalid(
        `body.collection_id: collection ${target.id} takes ${target.input_type} input, the output is ${kind ?? source.mime_type ?? 'of unknown type'}`,
      );
    }
    if (!deps.jobQueue) throw new AppError('unavailable', 'generation is not available: this backend has no job queue configured');
    const result = await startGeneration(
      { db, config: deps.config, queue: deps.jobQueue, ...(deps.storage ? { storage: deps.storage } : {}) },
      {
        collectionId: target.id,
        variables: { ...(req.body.variables ?? {}), ref_image_1: source.url },
        userId: caller.userId,
        isService: caller.isService,
        ...(source.deck_id ? { deckId: source.deck_id } : {}),
        parentOutputId: source.id,
        outputCollectionId: source.collection_id,
        source: 'studio_workflow',
        jobType: 'develop',
      },
    );
    return reply.code(202).send(
      ok({
        job_id: result.jobId,
        output_id: result.outputId,
        status: 'pending',
        develop_collection: { id: target.id, title: target.title, input_type: target.input_type, output_type: target.output_type },
        source_output: { id: source.id, url: source.url, mime_type: source.mime_type },
      }),
    );
  });
}
