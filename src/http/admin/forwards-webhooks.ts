/**
 * The admin proxy's webhook operations (docs/webhooks.md): each forwards to the backend's
 * /api/webhooks routes as its caller (the operator's subscriptions are the platform's; a signed-in
 * creator's are their own). The subscription id travels in the body or query, like the other
 * forwarded operations.
 */
import { z } from 'zod';
import { uuid } from '../schemas/common.ts';
import { EXAMPLE_ID, withExample } from '../schemas/examples.ts';
import {
  webhookCreateBody,
  replayedDelivery,
  testEvent,
  webhookDelivery,
  webhookSubscription,
  webhookWithSecret,
  WEBHOOK_EXAMPLES,
} from '../schemas/webhooks.ts';
import { type Forward, forward } from './forward-table.ts';

const id = withExample(uuid, EXAMPLE_ID.webhook).describe('The subscription');
const byId = withExample(z.object({ id }), { id: EXAMPLE_ID.webhook });
const S = WEBHOOK_EXAMPLES;
const shaped = <T extends z.ZodRawShape>(shape: T, example: unknown) => withExample(z.object(shape), example as never);
const tags = ['webhooks'];

export const WEBHOOK_FORWARDS: Forward[] = [
  forward({
    method: 'POST',
    url: '/api/webhooks',
    operationId: 'adminCreateWebhook',
    summary: 'Subscribe to events',
    description: 'Forwarded to POST /api/webhooks: the subscription and its signing secret, shown this once.',
    tags,
    input: webhookCreateBody,
    backend: (body) => ({ method: 'POST', path: 'api/webhooks', body }),
    response: shaped({ webhook: webhookWithSecret }, { webhook: { ...S.subscription, secret: S.secret } }),
    answer: (data) => ({ webhook: data }),
    status: 201,
  }),
  forward({
    method: 'GET',
    url: '/api/webhooks',
    operationId: 'adminListWebhooks',
    summary: 'List subscriptions',
    description: "Forwarded to GET /api/webhooks: the caller's subscriptions (the operator's: all), without secrets.",
    tags,
    input: z.object({}),
    backend: () => ({ method: 'GET', path: 'api/webhooks' }),
    response: shaped({ webhooks: z.array(webhookSubscription) }, { webhooks: [S.subscription] }),
    answer: (data) => ({ webhooks: data }),
  }),
  forward({
    method: 'PUT',
    url: '/api/webhooks/update',
    operationId: 'adminUpdateWebhook',
    summary: 'Change, pause or re-enable a subscription',
    description: 'Forwarded to PATCH /api/webhooks/:id with the other fields.',
    tags,
    input: withExample(
      z.object({
        id,
        url: webhookCreateBody.shape.url.optional(),
        events: webhookCreateBody.shape.events.optional(),
        enabled: z.boolean().optional(),
      }),
      { id: EXAMPLE_ID.webhook, enabled: true },
    ),
    // At least one field: the backend's check (400 naming them) comes back as it is.
    backend: ({ id, ...patch }) => ({ method: 'PATCH', path: `api/webhooks/${id}`, body: patch }),
    response: shaped({ webhook: webhookSubscription }, { webhook: S.subscription }),
    answer: (data) => ({ webhook: data }),
  }),
  forward({
    method: 'POST',
    url: '/api/webhooks/rotate',
    operationId: 'adminRotateWebhookSecret',
    summary: 'Rotate the signing secret',
    description:
      'Forwarded to POST /api/webhooks/:id/rotate: a new secret, shown this once; the previous one signs beside it for the overlap.',
    tags,
    input: withExample(
      z.object({
        id,
        overlap_seconds: z
          .number()
          .int()
          .min(0)
          .max(7 * 86_400)
          .optional(),
      }),
      {
        id: EXAMPLE_ID.webhook,
        overlap_seconds: 3600,
      },
    ),
    backend: ({ id, ...rest }) => ({ method: 'POST', path: `api/webhooks/${id}/rotate`, body: rest }),
    response: shaped({ webhook: webhookWithSecret }, { webhook: { ...S.subscription, secret: S.secret } }),
    answer: (data) => ({ webhook: data }),
  }),
  forward({
    method: 'GET',
    url: '/api/webhooks/deliveries',
    operationId: 'adminListWebhookDeliveries',
    summary: 'The delivery log',
    description: "Forwarded to GET /api/webhooks/:id/deliveries: each delivery's status and attempts with their status codes and timings.",
    tags,
    input: byId,
    backend: ({ id }) => ({ method: 'GET', path: `api/webhooks/${id}/deliveries` }),
    response: shaped({ deliveries: z.array(webhookDelivery) }, { deliveries: [S.delivery] }),
    answer: (data) => ({ deliveries: data }),
  }),
  forward({
    method: 'POST',
    url: '/api/webhooks/replay',
    operationId: 'adminReplayWebhookDelivery',
    summary: 'Send one delivery again',
    description: 'Forwarded to POST /api/webhooks/:id/deliveries/:deliveryId/replay.',
    tags,
    input: withExample(z.object({ id, deliveryId: withExample(uuid, EXAMPLE_ID.webhookDelivery) }), {
      id: EXAMPLE_ID.webhook,
      deliveryId: EXAMPLE_ID.webhookDelivery,
    }),
    backend: ({ id, deliveryId }) => ({ method: 'POST', path: `api/webhooks/${id}/deliveries/${deliveryId}/replay` }),
    response: replayedDelivery,
  }),
  forward({
    method: 'POST',
    url: '/api/webhooks/test',
    operationId: 'adminSendWebhookTest',
    summary: 'Send a test event',
    description: 'Forwarded to POST /api/webhooks/:id/test: a webhook.test event to this subscription alone.',
    tags,
    input: byId,
    backend: ({ id }) => ({ method: 'POST', path: `api/webhooks/${id}/test` }),
    response: testEvent,
  }),
  forward({
    method: 'POST',
    url: '/api/webhooks/delete',
    operationId: 'adminDeleteWebhook',
    summary: 'Delete a subscription',
    description: 'Forwarded to DELETE /api/webhooks/:id.',
    tags,
    input: byId,
    backend: ({ id }) => ({ method: 'DELETE', path: `api/webhooks/${id}` }),
    response: shaped({ deleted: z.literal(true) }, { deleted: true }),
  }),
];
