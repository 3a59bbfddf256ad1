import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { initTelemetry, shutdownTelemetry, startHeartbeat, withSpan } from '../src/telemetry.ts';

after(() => shutdownTelemetry());

test('spans: heartbeat attributes, success and failure of withSpan', async () => {
  const exporter = new InMemorySpanExporter();
  initTelemetry({ serviceName: 'test', exporter });
  const stop = startHeartbeat('backend', 20);
  await new Promise((r) => setTimeout(r, 70));
  stop();
  const beats = exporter.getFinishedSpans().filter((s) => s.name === 'service.heartbeat');
  assert.ok(beats.length >= 2, `heartbeats: ${beats.length}`);
  assert.equal(beats[0]!.attributes['service.status'], 'running');
  assert.equal(typeof beats[0]!.attributes['service.uptime_seconds'], 'number');

  assert.equal(await withSpan('job.submit', { 'job.type': 'x' }, async () => 7), 7);
  await assert.rejects(withSpan('job.process', { 'job.id': 'j1' }, async () => Promise.reject(new Error('boom'))));
  const submit = exporter.getFinishedSpans().find((s) => s.name === 'job.submit')!;
  assert.equal(submit.attributes.error, false);
  const failed = exporter.getFinishedSpans().find((s) => s.name === 'job.process')!;
  assert.equal(failed.attributes.error, true);
  assert.equal(failed.attributes['error.message'], 'boom');
  await shutdownTelemetry();
});

test('spans reach an OTLP/HTTP collector (fake) at /v1/traces', async () => {
  const received: Array<{ url?: string; type?: string; size: number }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url, type: req.headers['content-type'], size: Buffer.concat(chunks).length });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  initTelemetry({ serviceName: 'test', otlpEndpoint: endpoint });
  await withSpan('workflow.execute', { 'workflow.id': 'w' }, async () => undefined);
  await shutdownTelemetry(); // flushes the batch
  server.close();
  assert.equal(received.length, 1);
  assert.equal(received[0]!.url, '/v1/traces');
  assert.ok(received[0]!.size > 0);
});
