/** Outbound webhook subscriptions and deliveries (docs/webhooks.md). */
import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../domain/standard-webhooks.ts';
import { envelope } from './envelope.ts';
import { queryInt, uuid } from './common.ts';

export const webhookEvent = z.enum(WEBHOOK_EVENTS, { message: `expected one of ${WEBHOOK_EVENTS.join(', ')}` });

export const webhookCreateBody = z.strictObject({
  url: z
    .string()
    .max(2048, 'at most 2048 characters')
    .url('expected an http(s) URL')
    .describe('Where events are POSTed (http or https; public addresses only, see docs/webhooks.md)'),
  events: z.array(webhookEvent).min(1, 'name at least one event').max(WEBHOOK_EVENTS.length).describe('The events to receive'),
});

export const webhookUpdateBody = z
  .strictObject({
    url: webhookCreateBody.shape.url.optional(),
    events: webhookCreateBody.shape.events.optional(),
    enabled: z.boolean().optional().describe('false pauses deliveries; true re-enables (an automatically disabled one too)'),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'name at least one of url, events, enabled' });

export const webhookRotateBody = z
  .strictObject({
    overlap_seconds: z
      .number()
      .int('expected whole seconds')
      .min(0)
      .max(7 * 86_400, 'at most 7 days')
      .optional()
      .describe('How long the previous secret keeps signing beside the new one (default 24 h)'),
  })
  .optional();

export const webhookIdParams = z.object({ id: uuid });
export const webhookDeliveryParams = z.object({ id: uuid, deliveryId: uuid });
export const webhookDeliveriesQuery = z.object({ limit: queryInt(1, 200).optional() });

export const webhookSubscription = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  owner_id: z.string().nullable().describe('null: the operator’s (every collection); else the user whose records it follows'),
  consecutive_failures: z.number().int(),
  disabled_reason: z.string().nullable(),
  previous_secret_expires_at: z.string().nullable(),
  created_at: z.string(),
});

export const webhookWithSecret = webhookSubscription.extend({
  secret: z.string().describe('The signing secret (whsec_…): shown now only; keep it'),
});

export const webhookAttempt = z.object({
  attempt: z.number().int(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  at: z.string(),
});

export const webhookDelivery = z.object({
  id: z.string(),
  event_id: z.string(),
  type: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  last_duration_ms: z.number().int().nullable(),
  delivered_at: z.string().nullable(),
  payload: z.unknown(),
  attempt_log: z.array(webhookAttempt),
});

export const webhookResponse = envelope(webhookSubscription);
export const webhookSecretResponse = envelope(webhookWithSecret);
export const webhookListResponse = envelope(z.array(webhookSubscription));
export const webhookDeliveriesResponse = envelope(z.array(webhookDelivery));
export const webhookDeliveryResponse = envelope(z.object({ id: z.string(), status: z.string(), next_attempt_at: z.string() }));
export const webhookTestResponse = envelope(z.object({ event_id: z.string() }));
export const webhookDeletedResponse = envelope(z.object({ deleted: z.literal(true) }));
