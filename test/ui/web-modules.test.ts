/**
 * The console's pure helpers (web/), in Node without a browser: the editor's option parsing, odds
 * and undefined-variable check, the SSE parser of the job stream, USD to stablecoin units.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error plain ES modules of the console, without types
import { oddsText, parseOptions, undefinedVariables } from '../../web/editor.js';
// @ts-expect-error plain ES modules of the console, without types
import { sseParser } from '../../web/live/job-stream.js';
// @ts-expect-error plain ES modules of the console, without types
import { usdToUnits } from '../../web/panels/settings.js';

test('options: value or value:weight; a weight is a number ≥ 0, named when it is not', () => {
  assert.deepEqual(parseOptions('red:1, blue:3, gold', 'color'), [
    { value: 'red', display_name: 'red', weight: 1 },
    { value: 'blue', display_name: 'blue', weight: 3 },
    { value: 'gold', display_name: 'gold', weight: 1 },
  ]);
  assert.throws(() => parseOptions('red:x', 'color'), /the weight of "red" must be a number ≥ 0 \(got "x"\)/);
  assert.throws(() => parseOptions('blue:-1', 'color'), /the weight of "blue" must be a number ≥ 0/);
  assert.throws(() => parseOptions(':2', 'color'), /has no value before its weight/);
  assert.throws(() => parseOptions(' , ', 'color'), /give at least one option/);
  assert.throws(() => parseOptions('a:0, b:0', 'color'), /at least one weight must be above 0/);
  assert.deepEqual(oddsText('red:1, blue:3, gold:1', 'color'), { ok: true, text: 'red 20.0 %, blue 60.0 %, gold 20.0 %' });
  assert.equal(oddsText('red:x', 'color').ok, false);
});

test('undefined $variables: flagged, with the image inputs and the server prefix rule defined', () => {
  assert.deepEqual(undefinedVariables('a $colour $animal', ['color', 'animal']), ['colour']);
  assert.deepEqual(undefinedVariables('a ${color} $colors by $ref_image_1 and $social_pfp', ['color']), []);
  assert.deepEqual(undefinedVariables('$x $x $y', []), ['x', 'y']);
});

test('the SSE parser gives whole events across chunk boundaries and skips comments', () => {
  const events: Array<{ event: string; data: string; id?: string }> = [];
  const feed = sseParser((e: { event: string; data: string; id?: string }) => events.push(e));
  feed('retry: 1000\n\n: heartbeat\n\nid: 7\nevent: history_init\ndata: [{"id":7}]\n\nevent: job_up');
  feed('date\ndata: {"status":"processing",\ndata: "progress":40}\n\r\n');
  assert.deepEqual(events, [
    { event: 'history_init', data: '[{"id":7}]', id: '7' },
    { event: 'job_update', data: '{"status":"processing",\n"progress":40}', id: undefined },
  ]);
});

test('USD to stablecoin units (6 decimals), refusing what is not a price', () => {
  assert.equal(usdToUnits('2.5'), '2500000');
  assert.equal(usdToUnits('0.000001'), '1');
  assert.equal(usdToUnits('12'), '12000000');
  assert.throws(() => usdToUnits('1.0000001'), /at most 6 decimals/);
  assert.throws(() => usdToUnits('-1'), /mint price/);
});

test('addresses: keccak-256 and EIP-55 as viem computes them; a wrong checksum is refused naming the fix', async () => {
  // @ts-expect-error plain ES modules of the console, without types
  const { addressProblem, checksumAddress, keccak256Hex } = await import('../../web/address.js');
  const { getAddress, keccak256, toHex } = await import('viem');
  for (const text of ['', 'abc', 'x'.repeat(135), 'y'.repeat(136), 'z'.repeat(300)])
    assert.equal(`0x${keccak256Hex(new TextEncoder().encode(text))}`, keccak256(toHex(text)), `length ${text.length}`);
  for (let i = 0; i < 20; i++) {
    const lower = `0x${Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
    assert.equal(checksumAddress(lower), getAddress(lower));
  }
  const good = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
  assert.equal(addressProblem(good), null);
  assert.equal(addressProblem(good.toLowerCase()), null);
  assert.equal(addressProblem(`0x${good.slice(2).toUpperCase()}`), null);
  const typo = '0x70997970C51812dc3A010C7d01b50e0d17dc79C9';
  assert.equal(addressProblem(typo), `checksum mismatch: did you mean ${getAddress(typo.toLowerCase())}?`);
  assert.equal(addressProblem('0x1234'), 'expected 0x followed by 40 hex digits');
});

test("the webhooks page offers exactly the server's events", async () => {
  // @ts-expect-error plain ES modules of the console, without types
  const { WEBHOOK_EVENTS: offered } = await import('../../web/webhook-events.js');
  const { OPERATOR_WEBHOOK_EVENTS, WEBHOOK_EVENTS } = await import('../../src/domain/standard-webhooks.ts');
  assert.deepEqual(
    offered.map((e: { type: string }) => e.type),
    [...WEBHOOK_EVENTS],
  );
  // The ones kept from a creator are the ones the server refuses on a user's subscription.
  assert.deepEqual(
    offered.filter((e: { operatorOnly?: boolean }) => e.operatorOnly).map((e: { type: string }) => e.type),
    [...OPERATOR_WEBHOOK_EVENTS],
  );
});
