/**
 * POST /webhooks/video: the video streaming provider's signed webhook (Mux-compatible payload and
 * `Mux-Signature` header; docs/video.md). Public route: the HMAC over the raw body is the
 * credential. This plugin's JSON parser keeps the raw text (the signature covers the exact
 * bytes) and applies the same input checks as every other route.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalid } from '../../domain/errors.ts';
import type { VideoWebhookService } from '../../services/video-webhook.ts';
import { inputProblem } from '../plugins/input.ts';
import { ok } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';
import { EXAMPLE_ID, withExample } from '../schemas/examples.ts';

export interface VideoWebhookRoutesOptions {
  video: VideoWebhookService;
}

const ASSET = 'Kq01xWhJg6p8b3dO4s9VtR02mYc5FzL7nA';
const PLAYBACK = 'vF8yq3LrX1o5zW02hTc9sJk6bN4mPd7aE';
const eventBody = withExample(
  z.looseObject({
    type: z.string().max(100),
    data: z.looseObject({ id: z.string().max(255).optional(), passthrough: z.string().max(255).optional() }).optional(),
  }),
  {
    type: 'video.asset.ready',
    data: { id: ASSET, passthrough: EXAMPLE_ID.output, status: 'ready', playback_ids: [{ id: PLAYBACK, policy: 'public' }] },
  },
);

export const videoWebhookRoutes: FastifyPluginAsync<VideoWebhookRoutesOptions> = async (app, { video }) => {
  const raw = new WeakMap<FastifyRequest, string>();
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    raw.set(req, text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return done(invalid(`body: malformed JSON (${(err as Error).message})`), undefined);
    }
    const problem = inputProblem(parsed, 'body');
    done(problem ? invalid(problem) : null, problem ? undefined : parsed);
  });

  app.withTypeProvider<ZodTypeProvider>().post(
    '/webhooks/video',
    {
      config: { public: true },
      schema: {
        tags: ['feed'],
        operationId: 'videoWebhook',
        summary: 'Video provider webhook (Mux-compatible)',
        description:
          'Signed with `Mux-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` under VIDEO_WEBHOOK_SECRET; 401 for a missing, wrong or stale signature (older than VIDEO_WEBHOOK_TOLERANCE_SECONDS), 503 when no secret is configured. video.asset.created / ready / deleted set or clear stream_asset_id and stream_playback_id of the file named by data.passthrough (a flat file id or an output id) or by the asset id; other events are acknowledged and ignored.',
        body: eventBody,
        response: {
          200: envelope(
            withExample(
              z.object({
                applied: z.boolean(),
                event: z.string().optional(),
                ignored: z.string().optional(),
                flat_file_id: z.number().int().optional(),
                stream_asset_id: z.string().nullable().optional(),
                stream_playback_id: z.string().nullable().optional(),
              }),
              { applied: true, event: 'video.asset.ready', flat_file_id: 18, stream_asset_id: ASSET, stream_playback_id: PLAYBACK },
            ),
          ),
        },
      },
    },
    async (req) => {
      const header = req.headers['mux-signature'];
      const result = await video.receive(Array.isArray(header) ? header[0] : header, raw.get(req) ?? '', req.body);
      if (!result.applied) return ok({ applied: false, ignored: result.ignored });
      return ok({
        applied: true,
        event: result.event,
        flat_file_id: result.file.id,
        stream_asset_id: result.file.stream_asset_id,
        stream_playback_id: result.file.stream_playback_id,
      });
    },
  );
};
