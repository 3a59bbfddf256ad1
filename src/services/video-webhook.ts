import type { FlatFileRow } from '../db/flat-files.ts';
import { AppError, invalid } from '../domain/errors.ts';
import { UUID_RE } from '../domain/ids.ts';
import { verifyWebhookSignature } from '../domain/webhook-signature.ts';

export interface VideoWebhookPorts {
  setStreamIds(
    target: { flatFileId?: number; outputId?: string; assetId?: string },
    ids: { assetId: string | null; playbackId: string | null | undefined },
  ): Promise<FlatFileRow | undefined>;
  secret?: string;
  toleranceSeconds: number;
  nowSeconds?: () => number;
}

export interface VideoEvent {
  type?: unknown;
  data?: { id?: unknown; passthrough?: unknown; playback_ids?: unknown };
}

export type VideoWebhookResult = { applied: false; ignored: string } | { applied: true; event: string; file: FlatFileRow };

export const HANDLED_EVENTS = ['video.asset.created', 'video.asset.ready', 'video.asset.deleted'] as const;

function targetOf(data: NonNullable<VideoEvent['data']>, assetId: string) {
  const pass = typeof data.passthrough === 'string' ? data.passthrough.trim() : '';
  // flat_files.id is an int4: a larger number cannot name one (fall back to the asset id).
  if (/^\d{1,10}$/.test(pass) && Number(pass) <= 2_147_483_647) return { flatFileId: Number(pass) };
  if (UUID_RE.test(pass)) return { outputId: pass };
  return { assetId };
}

function publicPlaybackId(list: unknown): string | null {
  if (!Array.isArray(list)) return null;
  const ids = list.filter((p): p is { id: string; policy?: string } => typeof p?.id === 'string' && p.id.length > 0);
  return (ids.find((p) => p.policy === 'public') ?? ids[0])?.id ?? null;
}

export function createVideoWebhookService(ports: VideoWebhookPorts) {
  const now = ports.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  return {
    /** Verifies the signature over the raw body, then applies the event. 401 for a bad or stale signature. */
    async receive(signature: string | undefined, rawBody: string, event: VideoEvent): Promise<VideoWebhookResult> {
      if (!ports.secret) throw new AppError('unavailable', 'the video webhook is not configured: set VIDEO_WEBHOOK_SECRET');
      const check = verifyWebhookSignature({
        header: signature,
        rawBody,
        secret: ports.secret,
        toleranceSeconds: ports.toleranceSeconds,
        nowSeconds: now(),
      });
      if (!check.ok) throw new AppError('unauthorized', `Mux-Signature: ${check.reason}`);
      const type = typeof event.type === 'string' ? event.type : '';
      if (!(HANDLED_EVENTS as readonly string[]).includes(type)) return { applied: false, ignored: `event type "${type}" is not used` };
      const data = event.data ?? {};
      if (typeof data.id !== 'string' || data.id.length === 0 || data.id.length > 255)
        throw invalid('body.data.id: the asset id is required');
      const deleted = type === 'video.asset.deleted';
      const file = await ports.setStreamIds(targetOf(data, data.id), {
        assetId: deleted ? null : data.id,
        playbackId: deleted ? null : type === 'video.asset.ready' ? publicPlaybackId(data.playback_ids) : undefined,
      });
      if (!file) return { applied: false, ignored: 'no stored file matches the event (passthrough or asset id)' };
      return { applied: true, event: type, file };
    },
  };
}

export type VideoWebhookService = ReturnType<typeof createVideoWebhookService>;
