/**
 * Job routes (docs/api/content.md §4.3, §6.1; docs/jobs.md): GET /api/jobs/:id, the SSE stream
 * GET /api/jobs/:id/stream, the failsafes POST /api/jobs/:id/complete|failed, the forensics and
 * GET /api/credits. Starting and retrying generations are src/http/backend/generation.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { TERMINAL_JOB_STATUSES } from '../../domain/content-statuses.ts';
import { invalid, RateLimited } from '../../domain/errors.ts';
import type { JobHistoryRow, JobRow } from '../../db/jobs.ts';
import type { JobStreamHub } from '../../services/job-stream-hub.ts';
import type { JobService } from '../../services/jobs.ts';
import { requireUser } from '../plugins/auth.ts';
import { presentForensics, presentHistory, presentJob } from '../present/jobs.ts';
import { ok } from '../schemas/common.ts';
import {
  completeJobBody,
  creditsResponse,
  failedJobBody,
  forensicsParams,
  forensicsResponse,
  jobParams,
  jobResponse,
  streamQuery,
} from '../schemas/jobs.ts';

export const SSE_HEARTBEAT_MS = 15_000;

export interface JobRoutesOptions {
  jobs: JobService;
  /** Public URL of a storage key (forensics' flat files); the key itself without storage. */
  publicUrl: (key: string) => string;
  /** One reader per watched job, woken by job_history notifications (services/job-stream-hub.ts). */
  streams: JobStreamHub<JobRow, JobHistoryRow>;
  /**
   * SSE heartbeat interval (tests shorten it), and the open streams one signed-in user may hold in
   * this process (each holds a socket and a subscription; the operator is not counted).
   */
  sse?: { heartbeatMs?: number; maxPerUser?: number };
}

const SEEN = "Visible to the job's owner and the service key; 404 for anyone else.";

export const jobRoutes: FastifyPluginAsync<JobRoutesOptions> = async (app, { jobs, publicUrl, streams, sse }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['jobs'];

  r.get(
    '/api/jobs/:id',
    {
      schema: {
        tags,
        operationId: 'getJob',
        summary: 'Get a job',
        description: `The job (§2.4 fields plus user_id, collection_id, output_id, workflow_id). ${SEEN}`,
        params: jobParams,
        response: { 200: jobResponse },
      },
    },
    async (req) => ok(presentJob(await jobs.get(req.caller, req.params.id))),
  );

  r.post(
    '/api/jobs/:id/complete',
    {
      schema: {
        tags,
        operationId: 'forceCompleteJob',
        summary: 'Failsafe: complete a job',
        description:
          'Any state → completed with `workflow_output` (a completed job stays as it was); an open output completes with that URL. For the delivery path: the service key only (403 for users).',
        params: jobParams,
        body: completeJobBody,
        response: { 200: jobResponse },
      },
    },
    async (req) => {
      const b = req.body;
      const job = await jobs.forceComplete(req.caller, req.params.id, {
        workflowOutput: b.workflow_output,
        ...(b.outputs !== undefined ? { outputs: b.outputs } : {}),
        ...(b.metadata !== undefined ? { metadata: b.metadata } : {}),
      });
      return ok(presentJob(job));
    },
  );

  r.post(
    '/api/jobs/:id/failed',
    {
      schema: {
        tags,
        operationId: 'forceFailJob',
        summary: 'Failsafe: fail a job',
        description:
          'Any state → failed (details in the history entry); an open output fails. For the delivery path: the service key only (403 for users).',
        params: jobParams,
        body: failedJobBody,
        response: { 200: jobResponse },
      },
    },
    async (req) => {
      const job = await jobs.forceFail(req.caller, req.params.id, {
        ...(req.body?.error_message !== undefined ? { message: req.body.error_message } : {}),
        ...(req.body?.error_details !== undefined ? { details: req.body.error_details } : {}),
      });
      return ok(presentJob(job));
    },
  );

  r.get(
    '/api/jobs/:jobId/forensics',
    {
      schema: {
        tags,
        operationId: 'jobForensics',
        summary: "A job's forensics",
        description: `The job with its payload (data plus the flat files of its outputs), steps, history and retry backups. ${SEEN}`,
        params: forensicsParams,
        response: { 200: forensicsResponse },
      },
    },
    async (req) => ok(presentForensics(await jobs.forensics(req.caller, req.params.jobId), publicUrl)),
  );

  r.get(
    '/api/credits',
    {
      preValidation: async (req) => void requireUser(req),
      schema: {
        tags,
        operationId: 'getCredits',
        summary: "The caller's credits",
        description: "The caller's credit balance (created with the starting grant on first use) and the cost of one generation.",
        response: { 200: creditsResponse },
      },
    },
    async (req) => ok(await jobs.credits(req.caller)),
  );

  // GET /api/jobs/:id/stream — server-sent events (docs/api/content.md §6.1, docs/jobs.md).
  const heartbeatMs = sse?.heartbeatMs ?? SSE_HEARTBEAT_MS;
  const maxPerUser = sse?.maxPerUser ?? Number.POSITIVE_INFINITY;
  /** Open streams per signed-in user in this process. */
  const openByUser = new Map<string, number>();
  const done = (status: string) => TERMINAL_JOB_STATUSES.includes(status);
  // The hub hands the rows of one read to every stream of the job: each row is presented and
  // serialized once (keyed by the row object), not once per stream.
  const frames = new WeakMap<object, string>();
  const frameOf = (row: JobHistoryRow | JobRow, render: () => string) => {
    let frame = frames.get(row);
    if (frame === undefined) {
      frame = render();
      frames.set(row, frame);
    }
    return frame;
  };

  r.get(
    '/api/jobs/:id/stream',
    {
      schema: {
        tags,
        operationId: 'streamJob',
        summary: "A job's event stream",
        description: `Server-sent events: \`history_init\` (entries after Last-Event-ID), \`job_update\`, then \`job_history\` per new entry (id = history id) with a \`job_update\` per batch, \`: heartbeat\` every 15 s; ends when the job ends. ${SEEN}`,
        params: jobParams,
        querystring: streamQuery,
        response: {
          200: {
            description: 'text/event-stream of job_update, job_history and history_init events',
            content: { 'text/event-stream': { schema: z.string().describe('SSE frames: `id:`, `event:`, `data:` JSON') } },
          },
        },
      },
    },
    async (req, reply) => {
      const header = req.headers['last-event-id'];
      const rawLast = (Array.isArray(header) ? header[0] : header) ?? req.query.lastEventId;
      let lastId = rawLast && /^\d+$/.test(rawLast.trim()) ? Number(rawLast.trim()) : 0;
      // A history id is a positive integer; a larger one cannot be, and would end the stream at once.
      if (!Number.isSafeInteger(lastId)) throw invalid('Last-Event-ID: not a history id (an integer up to 2^53 − 1)');
      const job = await jobs.get(req.caller, req.params.id);
      const user = req.caller.kind === 'user' ? req.caller.userId : null;
      if (user && (openByUser.get(user) ?? 0) >= maxPerUser) {
        throw new RateLimited(`too many open job streams: at most ${maxPerUser} per user; close one first`, 5);
      }
      if (user) openByUser.set(user, (openByUser.get(user) ?? 0) + 1);

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      let closed = false;
      let beat: NodeJS.Timeout | undefined;
      let unsubscribe: (() => void) | undefined;
      const finish = () => {
        if (closed) return;
        closed = true;
        if (user) {
          const left = (openByUser.get(user) ?? 1) - 1;
          if (left > 0) openByUser.set(user, left);
          else openByUser.delete(user);
        }
        clearInterval(beat);
        unsubscribe?.();
        res.end();
      };
      req.raw.on('close', finish);
      res.on('close', finish);
      if (res.destroyed) finish(); // the client left before the listeners were set
      const frame = (event: string, data: unknown, id?: number) =>
        `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      const write = (text: string) => {
        if (!closed) res.write(text);
      };
      const send = (event: string, data: unknown, id?: number) => write(frame(event, data, id));

      try {
        res.write('retry: 1000\n\n');
        const init = await jobs.snapshot(job.id, lastId, 10_000);
        if (init.history.length > 0) lastId = init.history[init.history.length - 1]!.id;
        send('history_init', init.history.map(presentHistory), lastId > 0 ? lastId : undefined);
        const current = init.job ?? job;
        send('job_update', presentJob(current));
        // The terminal entry is written with the status change, so init already holds it.
        if (done(current.status)) return finish();
        // New entries come from the job's shared reader, woken by their notification.
        const stop = await streams.subscribe(job.id, {
          lastId,
          deliver(history, now) {
            let text = '';
            for (const row of history) text += frameOf(row, () => frame('job_history', presentHistory(row), row.id));
            write(text + frameOf(now, () => frame('job_update', presentJob(now))));
          },
          end: finish,
        });
        if (closed) return stop();
        unsubscribe = stop;
      } catch (err) {
        req.log.error({ err }, 'job stream failed');
        return finish();
      }
      beat = setInterval(() => {
        if (!closed) res.write(': heartbeat\n\n');
      }, heartbeatMs);
    },
  );
};
