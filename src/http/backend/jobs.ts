/**
 * Generation and job routes (content-service.md §4.3, §6.1; nft-service.md §4.2.1):
 * POST /api/collections/:id/generate (alias /generator/v2/:id), POST /collections/:id/generations,
 * GET /api/jobs/:id, GET /api/jobs/:id/stream (server-sent events), POST /api/jobs/:id/retry,
 * POST /api/jobs/:id/complete|failed (failsafes), GET /api/jobs/:jobId/forensics, GET /api/credits.
 * Decisions in docs/jobs.md.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { inArray } from 'drizzle-orm';
import { z } from 'zod';
import { getBalance } from '../../db/credits.ts';
import {
  findJob,
  getJob,
  historyAfter,
  listRetryBackups,
  listSteps,
  presentHistory,
  presentJob,
  presentStep,
  TERMINAL_JOB_STATUSES,
  type JobRow,
} from '../../db/jobs.ts';
import { completeOutput, failOutput, OUTPUT_SOURCES } from '../../db/outputs.ts';
import { flatFiles } from '../../db/schema/index.ts';
import { AppError, notFound } from '../../domain/errors.ts';
import { applyJobEvent } from '../../generation/job-events.ts';
import { retryJob, startGeneration, type GenerationContext, type StartGenerationInput } from '../../generation/pipeline.ts';
import { MAX_PRIORITY, MIN_PRIORITY } from '../../queue/index.ts';
import { requireUser } from '../plugins/auth.ts';
import { address, idParams, ok, socialOrg, txHash, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

export const SSE_HEARTBEAT_MS = 15_000;
export const SSE_POLL_MS = 500;

const variables = z.record(z.string(), z.unknown());
const priority = z.number().int().min(MIN_PRIORITY).max(MAX_PRIORITY);
const workflowId = z.string().trim().min(1).max(100);

const generateBody = z.object({
  variables,
  workflow_id: workflowId.optional(),
  workflow_priority: priority.optional(),
});

const generationsBody = z
  .object({
    variables: variables.default({}),
    workflow_id: workflowId.optional(),
    workflow_priority: priority.optional(),
    job_type: z
      .string()
      .trim()
      .min(1)
      .max(50)
      .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only')
      .optional(),
    social_org: socialOrg.optional(),
    social_identifier: z.string().trim().min(1).max(255).optional(),
    deck_id: uuid.optional(),
    mint_state: z
      .object({
        token_id: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
        tx_hash: txHash.optional(),
        recipient: address.optional(),
        metadata_uri: z.string().trim().min(1).max(2048).optional(),
      })
      .optional(),
    social_pfp: z.string().trim().max(2048).optional(),
  })
  .refine((b) => (b.social_org === undefined) === (b.social_identifier === undefined), {
    message: 'social_org and social_identifier go together',
    path: ['social_identifier'],
  });

const completeBody = z.object({
  outputs: z.unknown().optional(),
  metadata: z.unknown().optional(),
  workflow_output: z.string().trim().min(1).max(4096),
});
const failedBody = z.object({ error_message: z.string().max(10_000).optional(), error_details: z.unknown().optional() }).nullish();
const jobParams = z.object({ id: z.string().trim().min(1).max(200) });
const forensicsParams = z.object({ jobId: z.string().trim().min(1).max(200) });

/** A user sees their own jobs; the service key sees every job. Others get a 404 (no leak). */
function canSee(req: FastifyRequest, job: JobRow) {
  return req.caller.kind === 'service' || (req.auth.userId !== null && job.user_id === req.auth.userId);
}

function callerUser(req: FastifyRequest): { userId: string | null; isService: boolean } {
  const isService = req.caller.kind === 'service';
  if (isService) return { userId: req.auth.userId, isService };
  return { userId: requireUser(req), isService };
}

export function jobRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const tags = ['jobs'];

  const ctx = (): GenerationContext => {
    if (!deps.jobQueue) throw new AppError('unavailable', 'generation is not available: this backend has no job queue configured');
    return { db, config: deps.config, queue: deps.jobQueue, ...(deps.storage ? { storage: deps.storage } : {}) };
  };

  const visibleJob = async (req: FastifyRequest, id: string) => {
    const job = await findJob(db, id);
    if (!job || !canSee(req, job)) throw notFound(`job ${id}`);
    return job;
  };

  const generate = async (req: FastifyRequest, params: { id: string }, body: z.infer<typeof generateBody>) => {
    const caller = callerUser(req);
    const result = await startGeneration(ctx(), {
      collectionId: params.id,
      variables: body.variables,
      userId: caller.userId,
      isService: caller.isService,
      source: 'direct_api',
      jobType: 'collection_generation',
      ...(body.workflow_id ? { workflowId: body.workflow_id } : {}),
      ...(body.workflow_priority ? { priority: body.workflow_priority } : {}),
    });
    return ok({ jobId: result.jobId });
  };
  const needCaller = async (req: FastifyRequest) => void callerUser(req);
  for (const path of ['/api/collections/:id/generate', '/generator/v2/:id']) {
    r.post(path, { preValidation: needCaller, schema: { params: idParams, body: generateBody, tags } }, (req, reply) =>
      generate(req, req.params, req.body).then((body) => reply.code(202).send(body)),
    );
  }

  r.post(
    '/collections/:id/generations',
    { preValidation: needCaller, schema: { params: idParams, body: generationsBody, tags } },
    async (req, reply) => {
      const caller = callerUser(req);
      const b = req.body;
      const source = b.job_type && (OUTPUT_SOURCES as readonly string[]).includes(b.job_type) ? b.job_type : 'direct_api';
      const input: StartGenerationInput = {
        collectionId: req.params.id,
        variables: b.variables,
        userId: caller.userId,
        isService: caller.isService,
        source,
        jobType: b.job_type ?? 'collection_generation',
        ...(b.workflow_id ? { workflowId: b.workflow_id } : {}),
        ...(b.workflow_priority ? { priority: b.workflow_priority } : {}),
        ...(b.deck_id ? { deckId: b.deck_id } : {}),
        ...(b.mint_state ? { mintState: b.mint_state } : {}),
        ...(b.social_org && b.social_identifier ? { socialOrg: b.social_org, socialIdentifier: b.social_identifier } : {}),
        ...(b.social_pfp ? { socialPfp: b.social_pfp } : {}),
      };
      const result = await startGeneration(ctx(), input);
      return reply.code(202).send(ok(result));
    },
  );

  r.get('/api/jobs/:id', { schema: { params: jobParams, tags } }, async (req) => ok(presentJob(await visibleJob(req, req.params.id))));

  r.post('/api/jobs/:id/retry', { schema: { params: jobParams, tags } }, async (req) => {
    await visibleJob(req, req.params.id);
    return ok(await retryJob(ctx(), req.params.id, deps.config.JOB_STALE_STEP_MS));
  });

  r.post('/api/jobs/:id/complete', { schema: { params: jobParams, body: completeBody, tags } }, async (req) => {
    const job = await visibleJob(req, req.params.id);
    const b = req.body;
    if (job.output_id) {
      await completeOutput(db, job.output_id, { url: b.workflow_output }).catch(() => undefined); // only while it is open
    }
    await applyJobEvent(db, job.id, {
      type: 'complete',
      workflowOutput: b.workflow_output,
      ...(b.outputs !== undefined ? { outputs: b.outputs } : {}),
      ...(b.metadata !== undefined ? { metadata: b.metadata } : {}),
      source: 'failsafe',
    });
    return ok(presentJob(await getJob(db, job.id)));
  });

  r.post('/api/jobs/:id/failed', { schema: { params: jobParams, body: failedBody, tags } }, async (req) => {
    const job = await visibleJob(req, req.params.id);
    const message = req.body?.error_message?.trim() || 'job failed (reported by failsafe)';
    const res = await applyJobEvent(db, job.id, {
      type: 'error',
      message,
      ...(req.body?.error_details !== undefined ? { details: req.body.error_details } : {}),
      force: true,
      source: 'failsafe',
    });
    if (res.applied && job.output_id) await failOutput(db, job.output_id, message).catch(() => undefined);
    return ok(presentJob(await getJob(db, job.id)));
  });

  r.get('/api/jobs/:jobId/forensics', { schema: { params: forensicsParams, tags } }, async (req) => {
    const job = await visibleJob(req, req.params.jobId);
    const [steps, history, backups] = await Promise.all([
      listSteps(db, job.id),
      historyAfter(db, job.id, 0, 10_000),
      listRetryBackups(db, job.id),
    ]);
    const ids = new Set<number>();
    const data = job.data as Record<string, unknown>;
    for (const o of Array.isArray(data.outputs) ? data.outputs : []) {
      const id = (o as { flat_file_id?: unknown })?.flat_file_id;
      if (typeof id === 'number') ids.add(id);
    }
    const files =
      ids.size > 0
        ? await db
            .select()
            .from(flatFiles)
            .where(inArray(flatFiles.id, [...ids]))
        : [];
    return ok({
      ...presentJob(job),
      payload: {
        ...data,
        _flat_files: files.map((f) => ({
          id: f.id,
          url: deps.storage?.publicUrl(f.url) ?? f.url,
          mime_type: f.mime_type,
          stream_asset_id: f.stream_asset_id,
          stream_playback_id: f.stream_playback_id,
        })),
      },
      steps: steps.map(presentStep),
      history: history.map(presentHistory),
      retry_backups: backups.map((b) => ({ ...b, backed_up_at: b.backed_up_at.toISOString() })),
    });
  });

  r.get('/api/credits', { preValidation: async (req) => void requireUser(req), schema: { tags } }, async (req) => {
    const userId = requireUser(req);
    return ok({
      user_id: userId,
      balance: await getBalance(db, userId, deps.config.CREDITS_INITIAL_GRANT),
      cost_per_generation: deps.config.CREDITS_PER_GENERATION,
    });
  });

  // ---------------------------------------------------------------------------------------------
  // GET /api/jobs/:id/stream — server-sent events (content-service.md §6.1, docs/jobs.md)
  // ---------------------------------------------------------------------------------------------
  const heartbeatMs = deps.sse?.heartbeatMs ?? SSE_HEARTBEAT_MS;
  const pollMs = deps.sse?.pollMs ?? SSE_POLL_MS;
  const lastEventQuery = z.object({ lastEventId: z.string().regex(/^\d+$/, 'expected a history id').optional() });

  r.get('/api/jobs/:id/stream', { schema: { params: jobParams, querystring: lastEventQuery, tags } }, async (req, reply) => {
    const job = await visibleJob(req, req.params.id);
    const header = req.headers['last-event-id'];
    const rawLast = (Array.isArray(header) ? header[0] : header) ?? req.query.lastEventId;
    let lastId = rawLast && /^\d+$/.test(rawLast.trim()) ? Number(rawLast.trim()) : 0;

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    let beat: NodeJS.Timeout | undefined;
    const finish = () => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      clearInterval(beat);
      res.end();
    };
    req.raw.on('close', finish);
    res.on('close', finish);
    const send = (event: string, data: unknown, id?: number) => {
      if (closed) return;
      res.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };

    try {
      res.write('retry: 1000\n\n');
      const init = await historyAfter(db, job.id, lastId, 10_000);
      if (init.length > 0) lastId = init[init.length - 1]!.id;
      send('history_init', init.map(presentHistory), lastId > 0 ? lastId : undefined);
      const current = (await findJob(db, job.id)) ?? job;
      send('job_update', presentJob(current));
      if (TERMINAL_JOB_STATUSES.includes(current.status)) {
        // The terminal entry is written with the status change, so init already holds it.
        return finish();
      }
    } catch (err) {
      req.log.error({ err }, 'job stream failed');
      return finish();
    }
    beat = setInterval(() => {
      if (!closed) res.write(': heartbeat\n\n');
    }, heartbeatMs);
    const poll = async () => {
      if (closed) return;
      try {
        // Job first, then history: a terminal status read here has its history entry committed.
        const now = await findJob(db, job.id);
        const rows = await historyAfter(db, job.id, lastId);
        for (const row of rows) {
          send('job_history', presentHistory(row), row.id);
          lastId = row.id;
        }
        if (now && (rows.length > 0 || TERMINAL_JOB_STATUSES.includes(now.status))) send('job_update', presentJob(now));
        if (!now || (TERMINAL_JOB_STATUSES.includes(now.status) && rows.length < 1000)) return finish();
      } catch (err) {
        req.log.warn({ err }, 'job stream poll failed');
      }
      if (!closed) timer = setTimeout(poll, pollMs);
    };
    timer = setTimeout(poll, pollMs);
  });
}
