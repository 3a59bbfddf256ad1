import assert from 'node:assert/strict';
import { test } from 'node:test';
import { causeOf, describeFailure, endpointOf, trackOutage } from './dependency-outage.ts';

test('causeOf finds the socket error inside cause chains and AggregateErrors', () => {
  const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8545'), {
    code: 'ECONNREFUSED',
    address: '127.0.0.1',
    port: 8545,
  });
  const wrapped = new Error('HTTP request failed', { cause: new TypeError('fetch failed', { cause: new AggregateError([socket]) }) });
  assert.deepEqual(causeOf(wrapped), { code: 'ECONNREFUSED', host: '127.0.0.1', port: 8545, message: socket.message });
  assert.equal(describeFailure('RPC', wrapped), 'RPC 127.0.0.1:8545 unreachable (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:8545');
});

test('endpointOf never keeps credentials and fills default ports', () => {
  assert.deepEqual(endpointOf('postgres://u:secret@db.internal/atelier'), { host: 'db.internal', port: 5432 });
  assert.deepEqual(endpointOf('redis://cache:6380'), { host: 'cache', port: 6380 });
});

test('an outage is logged once when it starts and once when it ends', () => {
  const lines: string[] = [];
  const o = trackOutage('Redis', { host: 'h', port: 1 }, (level, msg) => lines.push(`${level} ${msg}`));
  o.recovered();
  for (let i = 0; i < 5; i++) o.failed(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }));
  o.recovered();
  o.recovered();
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^warn dependency down: Redis h:1 unreachable \(ECONNREFUSED\)/);
  assert.match(lines[1]!, /^info dependency back: Redis h:1 reachable again after \d+ ms/);
});
