/**
 * Webhook subscriptions (docs/webhooks.md): the operator subscribes to every collection's events,
 * a creator to their own records' events. Who may manage a subscription: its owner and the
 * operator (domain/policy.ts `webhook.*`). The secret is shown at creation and at rotation only.
 */
import { authorize, type Caller } from '../domain/policy.ts';
import { conflict, invalid, notFound } from '../domain/errors.ts';
import { newWebhookSecret, OPERATOR_WEBHOOK_EVENTS, WEBHOOK_EVENTS } from '../domain/standard-webhooks.ts';
import type { AttemptRow, DeliveryRow, OutboxEvent, SubscriptionRow } from '../db/webhooks.ts';
import { UUID_RE } from '../domain/ids.ts';

export interface WebhookStore {
  insert(s: { ownerId: string | null; url: string; events: string[]; secret: string }): Promise<SubscriptionRow>;
  find(id: string): Promise<SubscriptionRow | undefined>;
  list(ownerId: string | null | undefined): Promise<SubscriptionRow[]>;
  update(id: string, set: Partial<SubscriptionRow>): Promise<SubscriptionRow | undefined>;
  remove(id: string): Promise<boolean>;
  deliveries(subscriptionId: string, limit: number): Promise<Array<DeliveryRow & { type: string; payload: unknown }>>;
  attempts(deliveryIds: string[]): Promise<AttemptRow[]>;
  findDelivery(id: string): Promise<DeliveryRow | undefined>;
  requeue(id: string): Promise<DeliveryRow | undefined>;
  record(e: OutboxEvent): Promise<string | undefined>;
}

export interface WebhookServicePorts {
  store: WebhookStore;
  /** Refuses a receiver URL that may not be reached (scheme, private address; docs/security.md). */
  checkUrl(url: string): Promise<void>;
  /** How long the previous secret keeps signing after a rotation, by default. */
  rotationOverlapMs: number;
  /** Subscriptions one owner may have. */
  maxPerOwner: number;
}

export interface SubscriptionInput {
  url: string;
  events: string[];
}

const ownership = (s: SubscriptionRow) => ({ ownerId: s.owner_id });

export function createWebhookService(ports: WebhookServicePorts) {
  const { store } = ports;

  const load = async (caller: Caller, id: string, action: 'webhook.manage' | 'webhook.read') => {
    if (!UUID_RE.test(id)) throw invalid('id: not a webhook subscription id (a UUID)');
    const s = await store.find(id);
    if (!s) throw notFound('webhook subscription');
    // A user asking for someone else's subscription learns nothing about it.
    if (caller.kind === 'user' && s.owner_id !== caller.userId) throw notFound('webhook subscription');
    authorize(caller, action, ownership(s));
    return s;
  };

  /** The events of a subscription owned by `ownerId` (null: the operator's). */
  const checkEvents = (events: string[], ownerId: string | null) => {
    events.forEach((e, i) => {
      if (!(WEBHOOK_EVENTS as readonly string[]).includes(e)) {
        throw invalid(`body.events.${i}: unknown event ${JSON.stringify(e)}; one of ${WEBHOOK_EVENTS.join(', ')}`);
      }
      // Written with no owner, these reach the operator's subscriptions only: a user's would never fire.
      if (ownerId !== null && (OPERATOR_WEBHOOK_EVENTS as readonly string[]).includes(e)) {
        throw invalid(
          `body.events.${i}: ${e} is an operator event: only the operator's subscriptions (service key) receive it, a user's subscription may not name it`,
        );
      }
    });
    return [...new Set(events)];
  };

  const checkUrl = async (url: string) => {
    try {
      await ports.checkUrl(url);
    } catch (err) {
      throw invalid(`url: ${(err as Error).message}`);
    }
  };

  return {
    async create(caller: Caller, input: SubscriptionInput) {
      authorize(caller, 'webhook.create');
      // The operator's subscriptions are the platform's (every collection); a user's see their records.
      const ownerId = caller.kind === 'user' ? caller.userId : null;
      const events = checkEvents(input.events, ownerId);
      await checkUrl(input.url);
      const existing = await store.list(ownerId);
      if (existing.length >= ports.maxPerOwner) throw conflict(`at most ${ports.maxPerOwner} webhook subscriptions per owner`);
      return store.insert({ ownerId, url: input.url, events, secret: newWebhookSecret() });
    },

    async list(caller: Caller) {
      authorize(caller, 'webhook.create');
      return store.list(caller.kind === 'user' ? caller.userId : undefined);
    },

    get: (caller: Caller, id: string) => load(caller, id, 'webhook.read'),

    async update(caller: Caller, id: string, input: Partial<SubscriptionInput> & { enabled?: boolean }) {
      const s = await load(caller, id, 'webhook.manage');
      const set: Partial<SubscriptionRow> = {};
      if (input.events !== undefined) set.events = checkEvents(input.events, s.owner_id);
      if (input.url !== undefined) {
        await checkUrl(input.url);
        set.url = input.url;
      }
      if (input.enabled !== undefined) {
        set.enabled = input.enabled;
        // Re-enabling starts the failure count afresh.
        if (input.enabled) Object.assign(set, { consecutive_failures: 0, disabled_reason: null });
      }
      return (await store.update(id, set))!;
    },

    async rotate(caller: Caller, id: string, overlapSeconds?: number) {
      const s = await load(caller, id, 'webhook.manage');
      const overlapMs = overlapSeconds !== undefined ? overlapSeconds * 1000 : ports.rotationOverlapMs;
      return (await store.update(id, {
        secret: newWebhookSecret(),
        previous_secret: overlapMs > 0 ? s.secret : null,
        previous_secret_expires_at: overlapMs > 0 ? new Date(Date.now() + overlapMs) : null,
      }))!;
    },

    async remove(caller: Caller, id: string) {
      await load(caller, id, 'webhook.manage');
      await store.remove(id);
    },

    async deliveries(caller: Caller, id: string, limit: number) {
      await load(caller, id, 'webhook.read');
      const list = await store.deliveries(id, limit);
      const attempts = await store.attempts(list.map((d) => d.id));
      return list.map((d) => ({ ...d, attempt_log: attempts.filter((a) => a.delivery_id === d.id) }));
    },

    async replay(caller: Caller, id: string, deliveryId: string) {
      await load(caller, id, 'webhook.manage');
      if (!UUID_RE.test(deliveryId)) throw invalid('deliveryId: not a delivery id (a UUID)');
      const d = await store.findDelivery(deliveryId);
      if (!d || d.subscription_id !== id) throw notFound('delivery');
      return (await store.requeue(deliveryId))!;
    },

    /** A `webhook.test` event for this subscription alone (the console's "send test event"). */
    async test(caller: Caller, id: string) {
      const s = await load(caller, id, 'webhook.manage');
      const eventId = await store.record({
        key: `webhook.test:${id}:${Date.now()}:${Math.random()}`,
        type: 'webhook.test',
        ownerId: s.owner_id,
        payload: { subscription_id: id, message: 'a test event from Atelier' },
        onlySubscriptionId: id,
      });
      return { event_id: eventId! };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
