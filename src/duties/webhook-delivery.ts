/**
 * Webhook delivery (docs/webhooks.md "Delivery"): every process with the database runs a
 * deliverer. Each pass claims due deliveries (db/webhooks.ts: a claim is a lock that lapses, so a
 * killed deliverer's deliveries are sent again, and concurrent deliverers never take the same
 * one), POSTs each through the guarded fetcher with Standard Webhooks signatures, and records the
 * answer: 2xx succeeds; anything else is retried on the schedule, and a subscription that fails
 * `disableAfter` attempts in a row is disabled.
 */
import type { AttemptOutcome, ClaimedDelivery } from '../db/webhooks.ts';
import { retryDelayMs, standardWebhookHeaders, WEBHOOK_RETRY_DELAYS_MS } from '../domain/standard-webhooks.ts';

export interface WebhookDeliveryPorts {
  claim(limit: number, lockMs: number): Promise<ClaimedDelivery[]>;
  finish(d: ClaimedDelivery, o: AttemptOutcome): Promise<{ recorded: boolean; disabled: boolean }>;
  /** POSTs `body` to `url` (the guarded fetcher: public addresses only, timeout, size cap). */
  post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: Buffer }>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  now?: () => number;
}

export interface WebhookDeliveryOptions {
  /** Delays between attempts (default: the Standard Webhooks schedule, about 27 h in all). */
  schedule?: readonly number[];
  /** Failed attempts in a row that disable a subscription (default 50). */
  disableAfter?: number;
  /** How long a claim holds a delivery: longer than a request may take. */
  lockMs?: number;
  batch?: number;
}

export const DEFAULT_DISABLE_AFTER = 50;

export function createWebhookDeliverer(ports: WebhookDeliveryPorts, o: WebhookDeliveryOptions = {}) {
  const schedule = o.schedule ?? WEBHOOK_RETRY_DELAYS_MS;
  const disableAfter = o.disableAfter ?? DEFAULT_DISABLE_AFTER;
  const lockMs = o.lockMs ?? 30_000;
  const now = ports.now ?? Date.now;

  const deliverOne = async (d: ClaimedDelivery) => {
    const body = JSON.stringify(d.payload);
    const secrets = [d.secret];
    if (d.previous_secret && d.previous_secret_expires_at && d.previous_secret_expires_at.getTime() > now())
      secrets.push(d.previous_secret);
    const headers = {
      ...standardWebhookHeaders(secrets, d.event_id, Math.floor(now() / 1000), body),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'Atelier-Webhooks/1',
    };
    const started = now();
    let outcome: Omit<AttemptOutcome, 'retryInMs' | 'disableAfter'>;
    try {
      const res = await ports.post(d.url, headers, body);
      const ok = res.status >= 200 && res.status < 300;
      outcome = {
        ok,
        statusCode: res.status,
        error: ok ? null : `the receiver answered ${res.status}`,
        durationMs: now() - started,
        responseExcerpt: res.body.subarray(0, 500).toString('utf8').replace(/\0/g, ''),
      };
    } catch (err) {
      outcome = {
        ok: false,
        statusCode: null,
        error: (err as Error).message.slice(0, 500),
        durationMs: now() - started,
        responseExcerpt: null,
      };
    }
    const result = await ports.finish(d, {
      ...outcome,
      retryInMs: outcome.ok ? undefined : retryDelayMs(d.attempts, schedule),
      disableAfter,
    });
    if (result.disabled) {
      ports.log.warn(
        { subscription: d.subscription_id, url: d.url },
        `webhook subscription disabled after ${disableAfter} failed attempts in a row`,
      );
    }
    return outcome.ok;
  };

  return {
    /** One pass: claims and sends what is due; returns how many were attempted. */
    async pass(): Promise<number> {
      const batch = await ports.claim(o.batch ?? 20, lockMs);
      // One delivery's failure to record (database hiccup) leaves its claim to lapse; the rest go on.
      await Promise.all(
        batch.map((d) => deliverOne(d).catch((err) => ports.log.warn({ err, delivery: d.id }, 'webhook delivery not recorded'))),
      );
      return batch.length;
    },
  };
}
