import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signWebhook, verifyWebhookSignature } from './webhook-signature.ts';

const secret = 'whsec-test-0123456789';
const body = '{"type":"video.asset.ready"}';

test('Mux-style signatures: a good one, a bad one, a stale one, rotation, malformed headers', () => {
  const t = 1_700_000_000;
  const good = `t=${t},v1=${signWebhook(secret, t, body)}`;
  const check = (header: string | undefined, now = t) =>
    verifyWebhookSignature({ header, rawBody: body, secret, toleranceSeconds: 300, nowSeconds: now });
  assert.deepEqual(check(good), { ok: true, timestamp: t });
  assert.equal(check(good, t + 299).ok, true);
  const stale = check(good, t + 301);
  assert.equal(stale.ok, false);
  assert.match((stale as { reason: string }).reason, /replay/);
  const tampered = verifyWebhookSignature({ header: good, rawBody: `${body} `, secret, toleranceSeconds: 300, nowSeconds: t });
  assert.equal(tampered.ok, false);
  assert.equal(check(`t=${t},v1=${signWebhook('other', t, body)}`).ok, false);
  // Rotation: any one of several v1 values may match.
  assert.equal(check(`t=${t},v1=${signWebhook('old', t, body)},v1=${signWebhook(secret, t, body)}`).ok, true);
  for (const h of [undefined, '', 'v1=abc', `t=${t}`, `t=x,v1=${signWebhook(secret, t, body)}`])
    assert.equal(check(h).ok, false, String(h));
});
