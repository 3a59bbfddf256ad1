/**
 * A job and its live progress for the console (docs/admin-ui.md "Live generation"): GET
 * /api/nft/jobs/:jobId and GET /api/nft/jobs/:jobId/stream, the backend's GET /api/jobs/:id and
 * its server-sent events passed through as they come; POST /api/nft/jobs/:jobId/retry, the
 * backend's retry (the console's Retry button). All three go to the backend as the caller (a
 * user's own credential, or the service key), so the backend decides who may read or retry the
 * job (`job.read`, `job.retry`: its owner and the operator; 404 for anyone else).
 *
 * The stream is relayed chunk by chunk — each write reaches the socket at once (no compression,
 * no buffering; `X-Accel-Buffering: no` for a reverse proxy in front) — and a client that goes
 * away aborts the upstream request, so the backend's stream closes with it.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../domain/errors.ts';
import { adminSuccess } from '../schemas/envelope.ts';
import { adminRetryFields, job, jobIdParams as params, streamQuery } from '../schemas/jobs.ts';
import type { AdminDeps } from './deps.ts';
import { backendError } from './backend-client.ts';
import { actingAs } from './forward-table.ts';

export async function adminJobRoutes(app: FastifyInstance, deps: AdminDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['jobs'];

  r.get(
    '/api/nft/jobs/:jobId',
    {
      schema: {
        operationId: 'adminGetJob',
        summary: 'A job',
        description:
          "Forwarded to GET /api/jobs/:id as the caller: the job (status, progress, error, output). Its owner's and the operator's; 404 for anyone else.",
        tags,
        params,
        response: { 200: adminSuccess({ job }) },
      },
    },
    async (req) => {
      const found = await deps.backend.call<z.infer<typeof job>>('GET', `api/jobs/${encodeURIComponent(req.params.jobId)}`, actingAs(req));
      return { success: true as const, job: found };
    },
  );

  r.post(
    '/api/nft/jobs/:jobId/retry',
    {
      schema: {
        operationId: 'adminRetryJob',
        summary: 'Retry a job',
        description:
          "Forwarded to POST /api/jobs/:id/retry as the caller: the same job id runs again from its first step (retry_count + 1); follow it on its stream again. For a failed or stuck job; 409 after 3 retries, or for a completed or still moving job. Its owner's and the operator's; 404 for anyone else. The console's Retry button.",
        tags,
        params,
        response: { 200: adminSuccess(adminRetryFields) },
      },
    },
    async (req) => {
      const res = await deps.backend.call<{ jobId: string; retryAttempt: number; message: string }>(
        'POST',
        `api/jobs/${encodeURIComponent(req.params.jobId)}/retry`,
        actingAs(req),
      );
      return { success: true as const, jobId: res.jobId, retryAttempt: res.retryAttempt, message: res.message };
    },
  );

  r.get(
    '/api/nft/jobs/:jobId/stream',
    {
      schema: {
        operationId: 'adminStreamJob',
        summary: "A job's live events",
        description:
          "Server-sent events of GET /api/jobs/:id/stream passed through as they come: `history_init`, `job_update`, `job_history` (id = history id), `: heartbeat`; ends when the job ends. Last-Event-ID (header, or lastEventId) is forwarded. Send the credential as a header: read it with fetch and a stream reader (EventSource cannot send headers). 404 for a job that is not the caller's.",
        tags,
        params,
        querystring: streamQuery,
        response: {
          200: {
            description: 'text/event-stream of history_init, job_update and job_history events',
            content: { 'text/event-stream': { schema: z.string().describe('SSE frames: `id:`, `event:`, `data:` JSON') } },
          },
        },
      },
    },
    async (req, reply) => {
      const header = req.headers['last-event-id'];
      const lastEventId = (Array.isArray(header) ? header[0] : header) ?? req.query.lastEventId;
      const res = reply.raw;
      // The client gone (or the answer over): the upstream request goes too, even while it is opening.
      const upstreamAbort = new AbortController();
      res.on('close', () => upstreamAbort.abort());
      const upstream = await deps.backend.open('GET', `api/jobs/${encodeURIComponent(req.params.jobId)}/stream`, {
        ...actingAs(req),
        headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal: upstreamAbort.signal,
      });
      if (!upstream.ok) throw await backendError(upstream);
      if (!upstream.body) throw new AppError('upstream', 'the backend answered the job stream without a body');

      reply.hijack();
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.flushHeaders();
      const reader = upstream.body.getReader();
      const close = () => {
        upstreamAbort.abort();
        reader.cancel().catch(() => undefined);
        if (!res.writableEnded) res.end();
      };
      if (upstreamAbort.signal.aborted) return close();
      upstreamAbort.signal.addEventListener('abort', close, { once: true });
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done || upstreamAbort.signal.aborted) break;
          // Each chunk as it comes: nothing here buffers or compresses.
          res.write(value);
        }
      } catch (err) {
        // The client left (abort) or the backend went away: either way this stream is over.
        if (!upstreamAbort.signal.aborted) req.log.warn({ err: (err as Error).message }, 'job stream relay ended early');
      } finally {
        close();
      }
    },
  );
}
