/**
 * Outbound webhook routes (docs/webhooks.md): subscribe (the secret is shown once), list, change,
 * rotate the secret, delete, the delivery log, replay one delivery, send a test event. The
 * operator's subscriptions follow every collection; a creator's follow their own records.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SubscriptionRow } from '../../db/webhooks.ts';
import type { WebhookService } from '../../services/webhooks.ts';
import { ok } from '../schemas/common.ts';
import {
  webhookCreateBody,
  webhookDeletedResponse,
  webhookDeliveriesQuery,
  webhookDeliveriesResponse,
  webhookDeliveryParams,
  webhookDeliveryResponse,
  webhookIdParams,
  webhookListResponse,
  webhookResponse,
  webhookRotateBody,
  webhookSecretResponse,
  webhookTestResponse,
  webhookUpdateBody,
} from '../schemas/webhooks.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

const present = (s: SubscriptionRow) => ({
  id: s.id,
  url: s.url,
  events: s.events,
  enabled: s.enabled,
  owner_id: s.owner_id,
  consecutive_failures: s.consecutive_failures,
  disabled_reason: s.disabled_reason,
  previous_secret_expires_at: iso(s.previous_secret_expires_at),
  created_at: s.created_at.toISOString(),
});

export const webhookRoutes: FastifyPluginAsync<{ webhooks: WebhookService }> = async (app, { webhooks }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['webhooks'];
  const who = 'Signed-in users manage their own subscriptions; the operator (service key) manages every one.';

  r.post(
    '/api/webhooks',
    {
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Subscribe to events',
        description: `Creates a subscription and answers its signing secret (whsec_…), shown this once. The URL must reach a public address (a dev receiver on this machine only when its origin is in OUTSIDE_FETCH_ALLOW_ORIGINS). ${who}`,
        body: webhookCreateBody,
        response: { 201: webhookSecretResponse },
      },
    },
    async (req, reply) => {
      const s = await webhooks.create(req.caller, req.body);
      return reply.code(201).send(ok({ ...present(s), secret: s.secret }));
    },
  );

  r.get(
    '/api/webhooks',
    {
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: 'List subscriptions',
        description: `The caller's subscriptions (the operator sees all), newest first, without secrets. ${who}`,
        response: { 200: webhookListResponse },
      },
    },
    async (req) => ok((await webhooks.list(req.caller)).map(present)),
  );

  r.post(
    '/api/webhooks/:id/rotate',
    {
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret',
        description: `A new secret, shown this once; the previous one keeps signing beside it (two v1 signatures) for overlap_seconds (default 24 h) so receivers can switch without losing events. ${who}`,
        params: webhookIdParams,
        body: webhookRotateBody,
        response: { 200: webhookSecretResponse },
      },
    },
    async (req) => {
      const s = await webhooks.rotate(req.caller, req.params.id, req.body?.overlap_seconds);
      return ok({ ...present(s), secret: s.secret });
    },
  );

  r.get(
    '/api/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log',
        description: `The subscription's deliveries, newest first (limit, default 50): status, attempts, the last answer and each attempt's status code, error and duration. ${who}`,
        params: webhookIdParams,
        querystring: webhookDeliveriesQuery,
        response: { 200: webhookDeliveriesResponse },
      },
    },
    async (req) => {
      const list = await webhooks.deliveries(req.caller, req.params.id, req.query.limit ?? 50);
      return ok(
        list.map((d) => ({
          id: d.id,
          event_id: d.event_id,
          type: d.type,
          status: d.status as 'pending' | 'succeeded' | 'failed',
          attempts: d.attempts,
          next_attempt_at: d.status === 'pending' ? iso(new Date(d.next_attempt_at)) : null,
          last_status_code: d.last_status_code,
          last_error: d.last_error,
          last_duration_ms: d.last_duration_ms,
          delivered_at: iso(d.delivered_at ? new Date(d.delivered_at) : null),
          payload: d.payload,
          attempt_log: d.attempt_log.map((a) => ({
            attempt: a.attempt,
            status_code: a.status_code,
            error: a.error,
            duration_ms: a.duration_ms,
            at: a.created_at.toISOString(),
          })),
        })),
      );
    },
  );

  r.post(
    '/api/webhooks/:id/deliveries/:deliveryId/replay',
    {
      schema: {
        tags,
        operationId: 'replayWebhookDelivery',
        summary: 'Send one delivery again',
        description: `Queues the delivery to be sent now with the same webhook-id (receivers deduplicate by it), whatever its status. ${who}`,
        params: webhookDeliveryParams,
        response: { 202: webhookDeliveryResponse },
      },
    },
    async (req, reply) => {
      const d = await webhooks.replay(req.caller, req.params.id, req.params.deliveryId);
      return reply.code(202).send(ok({ id: d.id, status: d.status, next_attempt_at: new Date(d.next_attempt_at).toISOString() }));
    },
  );

  r.post(
    '/api/webhooks/:id/test',
    {
      schema: {
        tags,
        operationId: 'sendWebhookTest',
        summary: 'Send a test event',
        description: `Queues a \`webhook.test\` event to this subscription alone; its delivery shows in the log. ${who}`,
        params: webhookIdParams,
        response: { 202: webhookTestResponse },
      },
    },
    async (req, reply) => reply.code(202).send(ok(await webhooks.test(req.caller, req.params.id))),
  );
  // The record's own routes after its sub-resources: the documents list the deletion last.
  r.get(
    '/api/webhooks/:id',
    {
      schema: {
        tags,
        operationId: 'getWebhook',
        summary: 'One subscription',
        description: `A subscription without its secret: events, whether enabled, failures in a row and why it was disabled. ${who}`,
        params: webhookIdParams,
        response: { 200: webhookResponse },
      },
    },
    async (req) => ok(present(await webhooks.get(req.caller, req.params.id))),
  );

  r.patch(
    '/api/webhooks/:id',
    {
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Change a subscription',
        description: `Changes the URL or events, or pauses (enabled false) and re-enables one (an automatically disabled one too; its failure count restarts). ${who}`,
        params: webhookIdParams,
        body: webhookUpdateBody,
        response: { 200: webhookResponse },
      },
    },
    async (req) => ok(present(await webhooks.update(req.caller, req.params.id, req.body))),
  );

  r.delete(
    '/api/webhooks/:id',
    {
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a subscription',
        description: `Deletes the subscription with its deliveries; nothing more is sent to it. ${who}`,
        params: webhookIdParams,
        response: { 200: webhookDeletedResponse },
      },
    },
    async (req) => {
      await webhooks.remove(req.caller, req.params.id);
      return ok({ deleted: true as const });
    },
  );
};
