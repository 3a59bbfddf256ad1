/**
 * Outbound webhook signatures, the Standard Webhooks scheme (docs/webhooks.md "Verifying"):
 * secret `whsec_<base64 key>`; signed content `<webhook-id>.<webhook-timestamp>.<body>`;
 * `webhook-signature: v1,<base64 HMAC-SHA256>`, several space-separated during a secret
 * rotation. Pure: no I/O.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes, base64, with the scheme's prefix. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** One `v1,<signature>` entry for `secret`. */
export function signStandardWebhook(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${msgId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of one delivery, signed with every secret given (the current one first). */
export function standardWebhookHeaders(
  secrets: readonly string[],
  msgId: string,
  timestampSeconds: number,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signStandardWebhook(s, msgId, timestampSeconds, body)).join(' '),
  };
}

/**
 * The retry schedule: the delay before attempt n+1 after n failed attempts (the Standard
 * Webhooks schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h — about 27 h in all). Undefined
 * when the attempts are exhausted.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

export function retryDelayMs(failedAttempts: number, schedule: readonly number[] = WEBHOOK_RETRY_DELAYS_MS): number | undefined {
  return schedule[failedAttempts - 1];
}

/** The events a subscription may name (docs/webhooks.md "Events"). */
export const WEBHOOK_EVENTS = [
  'collection.deployed',
  'token.minted',
  'token.purchased',
  'artwork.completed',
  'artwork.failed',
  'sample.completed',
  'payment.received',
  'token.transferred',
  'collection.revealed',
  'collection.frozen',
  'wallet.low_balance',
  'transaction.stuck',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/**
 * The events about the platform itself rather than anyone's record: written with no owner
 * (db/wallet-health.ts), so only the operator's subscriptions (owner null) receive them, and a
 * user's subscription may not name them (services/webhooks.ts).
 */
export const OPERATOR_WEBHOOK_EVENTS: readonly WebhookEventType[] = ['wallet.low_balance', 'transaction.stuck'];

/** A deterministic message id for a state change, so a retried write never makes a second event. */
export function webhookMessageId(hashHex: string): string {
  return `msg_${hashHex.slice(0, 32)}`;
}
