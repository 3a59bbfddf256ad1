import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import pino from 'pino';
import {
  currentTraceCarrier,
  initTelemetry,
  parentFromCarrier,
  shutdownTelemetry,
  startHeartbeat,
  traceLogFields,
  withSpan,
} from '../src/telemetry.ts';

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

test('active spans: children, log fields, and the W3C carrier that continues a trace elsewhere', async () => {
  const exporter = new InMemorySpanExporter();
  initTelemetry({ serviceName: 'test', exporter });
  const lines: string[] = [];
  const log = pino({ mixin: traceLogFields }, { write: (l: string) => void lines.push(l) });
  let carrier: ReturnType<typeof currentTraceCarrier>;
  await withSpan('job.submit', {}, async () => {
    log.info('inside');
    await withSpan('comfyui.execute', {}, async () => undefined);
    carrier = currentTraceCarrier();
  });
  log.info('outside');
  assert.match(carrier!.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  await withSpan('job.process', {}, async () => undefined, parentFromCarrier(carrier));
  const [submit, child, processed] = ['job.submit', 'comfyui.execute', 'job.process'].map(
    (n) => exporter.getFinishedSpans().find((s) => s.name === n)!,
  );
  assert.equal(child!.parentSpanContext?.spanId, submit!.spanContext().spanId);
  assert.equal(processed!.spanContext().traceId, submit!.spanContext().traceId);
  assert.equal(processed!.parentSpanContext?.spanId, submit!.spanContext().spanId);
  const inside = JSON.parse(lines[0]!);
  assert.equal(inside.trace_id, submit!.spanContext().traceId);
  assert.equal(inside.span_id, submit!.spanContext().spanId);
  assert.equal(JSON.parse(lines[1]!).trace_id, undefined);
  assert.equal(parentFromCarrier({ traceparent: 'garbage' }), ROOT_CONTEXT);
  await shutdownTelemetry();
});
