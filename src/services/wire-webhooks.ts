/**
 * The real ports of outbound webhooks: db/webhooks.ts on one database, and the guarded fetcher
 * (public addresses only unless OUTSIDE_FETCH_ALLOW_ORIGINS allows a dev receiver; timeouts and a
 * size cap; no redirects followed, a 3xx is a failed attempt).
 */
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import {
  claimDueDeliveries,
  deleteSubscription,
  findDelivery,
  findSubscription,
  finishAttempt,
  insertSubscription,
  listAttempts,
  listDeliveries,
  listSubscriptions,
  recordWebhookEvent,
  requeueDelivery,
  updateSubscription,
} from '../db/webhooks.ts';
import { createWebhookDeliverer } from '../duties/webhook-delivery.ts';
import { checkOutsideUrl, guardedFetch } from '../net/guarded-fetch.ts';
import { createWebhookService } from './webhooks.ts';

export interface WebhookSettings {
  allowOrigins: readonly string[];
  retryScheduleMs: readonly number[];
  disableAfter: number;
  /** How long a claim holds a delivery (default 30 s: longer than the 10 s request timeout). */
  lockMs?: number;
}

/** The webhook settings of a process's configuration. */
export function webhookSettingsOf(
  config: Pick<Config, 'OUTSIDE_FETCH_ALLOW_ORIGINS' | 'WEBHOOK_RETRY_SCHEDULE_MS' | 'WEBHOOK_DISABLE_AFTER'>,
): WebhookSettings {
  return {
    allowOrigins: config.OUTSIDE_FETCH_ALLOW_ORIGINS,
    retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
    disableAfter: config.WEBHOOK_DISABLE_AFTER,
  };
}

export function webhookServiceOn(db: Db, s: WebhookSettings) {
  return createWebhookService({
    store: {
      insert: (x) => insertSubscription(db, x),
      find: (id) => findSubscription(db, id),
      list: (owner) => listSubscriptions(db, owner),
      update: (id, set) => updateSubscription(db, id, set),
      remove: (id) => deleteSubscription(db, id),
      deliveries: (id, limit) => listDeliveries(db, id, limit),
      attempts: (ids) => listAttempts(db, ids),
      findDelivery: (id) => findDelivery(db, id),
      requeue: (id) => requeueDelivery(db, id),
      record: (e) => recordWebhookEvent(db, e),
    },
    checkUrl: async (url) => void (await checkOutsideUrl(url, { allowOrigins: s.allowOrigins })),
    rotationOverlapMs: 24 * 3_600_000,
    maxPerOwner: 50,
  });
}

export function webhookDelivererOn(
  db: Db,
  s: WebhookSettings,
  log: { info(o: object, m: string): void; warn(o: object, m: string): void },
) {
  return createWebhookDeliverer(
    {
      claim: (limit, lockMs) => claimDueDeliveries(db, limit, lockMs),
      finish: (d, o) => finishAttempt(db, d, o),
      post: async (url, headers, body) => {
        const res = await guardedFetch(url, {
          method: 'POST',
          headers,
          body,
          allowOrigins: s.allowOrigins,
          maxRedirects: 0,
          timeoutMs: 10_000,
          maxBytes: 64 * 1024,
        });
        return { status: res.status, body: res.body };
      },
      log,
    },
    { schedule: s.retryScheduleMs, disableAfter: s.disableAfter, lockMs: s.lockMs ?? 30_000 },
  );
}
