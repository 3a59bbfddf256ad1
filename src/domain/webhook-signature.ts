/**
 * Webhook signatures in the Mux scheme (docs/video.md): header `Mux-Signature: t=<unix seconds>,
 * v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the shared secret>`. Several v1 values may be
 * present (secret rotation); one match is enough. A timestamp further than `toleranceSeconds`
 * from now is refused, so a captured request cannot be replayed later. Pure: no I/O.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: string };

export function signWebhook(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

export function verifyWebhookSignature(opts: {
  header: string | undefined;
  rawBody: string;
  secret: string;
  toleranceSeconds: number;
  nowSeconds: number;
}): SignatureCheck {
  if (!opts.header) return { ok: false, reason: 'the Mux-Signature header is missing' };
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of opts.header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d{1,12}$/.test(v)) timestamp = Number(v);
    else if (k === 'v1' && v && /^[0-9a-f]{64}$/i.test(v)) signatures.push(v.toLowerCase());
  }
  if (timestamp === undefined || signatures.length === 0)
    return { ok: false, reason: 'the Mux-Signature header must be t=<unix seconds>,v1=<hex HMAC-SHA256>' };
  if (Math.abs(opts.nowSeconds - timestamp) > opts.toleranceSeconds)
    return { ok: false, reason: `the signature timestamp is more than ${opts.toleranceSeconds} s from now (replay refused)` };
  const expected = Buffer.from(signWebhook(opts.secret, timestamp, opts.rawBody), 'hex');
  const match = signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
  return match ? { ok: true, timestamp } : { ok: false, reason: 'the signature does not match the body' };
}
