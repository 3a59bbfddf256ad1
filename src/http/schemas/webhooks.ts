/** Outbound webhook subscriptions and deliveries (docs/webhooks.md). */
import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../domain/standard-webhooks.ts';
import { envelope } from './envelope.ts';
import { queryInt, uuid } from './common.ts';
import { EXAMPLE_ID, EXAMPLE_TIME, withExample } from './examples.ts';

const EXAMPLE_URL = 'https://hooks.example.com/atelier';
const EXAMPLE_SUBSCRIPTION = {
  id: EXAMPLE_ID.webhook,
  url: EXAMPLE_URL,
  events: ['token.minted', 'artwork.completed'],
  enabled: true,
  owner_id: null,
  consecutive_failures: 0,
  disabled_reason: null,
  previous_secret_expires_at: null,
  created_at: EXAMPLE_TIME.created,
};
const EXAMPLE_SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const EXAMPLE_DELIVERY = {
  id: EXAMPLE_ID.webhookDelivery,
  event_id: 'msg_5f1c0b7e4a9d2c3b8e6f1a0d9c8b7a6e',
  type: 'token.minted',
  status: 'succeeded' as const,
  attempts: 2,
  next_attempt_at: null,
  last_status_code: 200,
  last_error: null,
  last_duration_ms: 41,
  delivered_at: EXAMPLE_TIME.minted,
  payload: { type: 'token.minted', timestamp: EXAMPLE_TIME.minted, data: { collection_id: EXAMPLE_ID.collection, token_id: 1 } },
  attempt_log: [
    { attempt: 1, status_code: 503, error: 'the receiver answered 503', duration_ms: 38, at: EXAMPLE_TIME.minted },
    { attempt: 2, status_code: 200, error: null, duration_ms: 41, at: EXAMPLE_TIME.minted },
  ],
};

export const webhookEvent = z.enum(WEBHOOK_EVENTS, { message: `expected one of ${WEBHOOK_EVENTS.join(', ')}` });

export const webhookCreateBody = withExample(
  z.strictObject({
    url: z
      .string()
      .max(2048, 'at most 2048 characters')
      .url('expected an http(s) URL')
      .describe('Where events are POSTed (http or https; public addresses only, see docs/webhooks.md)'),
    events: z.array(webhookEvent).min(1, 'name at least one event').max(WEBHOOK_EVENTS.length).describe('The events to receive'),
  }),
  { url: EXAMPLE_URL, events: ['token.minted', 'artwork.completed'] },
);

export const webhookUpdateBody = withExample(
  z
    .strictObject({
      url: webhookCreateBody.shape.url.optional(),
      events: webhookCreateBody.shape.events.optional(),
      enabled: z.boolean().optional().describe('false pauses deliveries; true re-enables (an automatically disabled one too)'),
    })
    .refine((b) => Object.keys(b).length > 0, { message: 'name at least one of url, events, enabled' }),
  { enabled: true },
);

export const webhookRotateBody = withExample(
  z.strictObject({
    overlap_seconds: z
      .number()
      .int('expected whole seconds')
      .min(0)
      .max(7 * 86_400, 'at most 7 days')
      .optional()
      .describe('How long the previous secret keeps signing beside the new one (default 24 h)'),
  }),
  { overlap_seconds: 3600 },
).optional();

export const webhookIdParams = z.object({ id: withExample(uuid, EXAMPLE_ID.webhook) });
export const webhookDeliveryParams = z.object({
  id: withExample(uuid, EXAMPLE_ID.webhook),
  deliveryId: withExample(uuid, EXAMPLE_ID.webhookDelivery),
});
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

export const webhookResponse = withExample(envelope(webhookSubscription), { data: EXAMPLE_SUBSCRIPTION, error: null });
export const webhookSecretResponse = withExample(envelope(webhookWithSecret), {
  data: { ...EXAMPLE_SUBSCRIPTION, secret: EXAMPLE_SECRET },
  error: null,
});
export const webhookListResponse = withExample(envelope(z.array(webhookSubscription)), { data: [EXAMPLE_SUBSCRIPTION], error: null });
export const webhookDeliveriesResponse = withExample(envelope(z.array(webhookDelivery)), { data: [EXAMPLE_DELIVERY], error: null });
export const replayedDelivery = withExample(z.object({ id: z.string(), status: z.string(), next_attempt_at: z.string() }), {
  id: EXAMPLE_ID.webhookDelivery,
  status: 'pending',
  next_attempt_at: EXAMPLE_TIME.minted,
});
export const webhookDeliveryResponse = envelope(replayedDelivery);
export const testEvent = withExample(z.object({ event_id: z.string() }), { event_id: 'msg_0b9e1d4c7a2f5e8d3c6b9a0f1e2d3c4b' });
export const webhookTestResponse = envelope(testEvent);
export const deletedWebhook = withExample(z.object({ deleted: z.literal(true) }), { deleted: true });
export const webhookDeletedResponse = envelope(deletedWebhook);
export const WEBHOOK_EXAMPLES = { subscription: EXAMPLE_SUBSCRIPTION, secret: EXAMPLE_SECRET, delivery: EXAMPLE_DELIVERY };
