/**
 * Telemetry across real processes (docs/api/content.md §6.3, docs/telemetry.md): `atelier backend`
 * and `atelier worker` on PostgreSQL and BullMQ (Redis db 13), both exporting to a fake OTLP/HTTP
 * collector in this test that decodes the JSON the exporter sends. A job submitted through
 * POST /api/jobs is processed by the worker process in the same trace (traceparent stored in the
 * queued step); heartbeats, workflow.execute and the spans' attributes arrive too.
 */
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { SERVICE_KEY, call, sampleData } from './helpers/platform.ts';
import { waitFor } from './helpers/wait.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
  attributes: Record<string, unknown>;
}

/** The fake collector: POST /v1/traces with an OTLP ExportTraceServiceRequest in JSON. */
function startCollector() {
  const spans: OtlpSpan[] = [];
  const contentTypes = new Set<string>();
  const value = (v: Record<string, unknown>) =>
    'stringValue' in v ? v.stringValue : 'intValue' in v ? Number(v.intValue) : 'boolValue' in v ? v.boolValue : v.doubleValue;
  const attrs = (list: Array<{ key: string; value: Record<string, unknown> }> = []) =>
    Object.fromEntries(list.map((a) => [a.key, value(a.value)]));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url !== '/v1/traces') return void res.writeHead(404).end();
      contentTypes.add(String(req.headers['content-type']));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attrs(rs.resource?.attributes)['service.name']);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              service,
              attributes: attrs(s.attributes),
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { server, spans, contentTypes };
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

const children: ChildProcess[] = [];
function startProcess(command: string, env: Record<string, string>, ready: string): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [path.resolve('bin/atelier.js'), command], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${out}`)));
  });
}
async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.removeAllListeners('exit');
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

let database: TestDatabase | undefined;
const collector = startCollector();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-otel-'));
after(async () => {
  for (const c of children) await stop(c);
  collector.server.close();
  await database?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('backend and worker processes: heartbeats, workflow.execute, and job.submit → job.process in one trace across the queue', async () => {
  await new Promise<void>((r) => collector.server.listen(0, '127.0.0.1', r));
  database = await createTestDatabase();
  const port = await freePort();
  const env = {
    DATABASE_URL: database.url!,
    REDIS_URL: 'redis://127.0.0.1:6379/13',
    API_KEY: SERVICE_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEV_CHAIN: 'false',
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.server.address() as AddressInfo).port}`,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    TELEMETRY_HEARTBEAT_MS: '1000',
  };
  const backend = await startProcess('backend', env, 'backend listening');
  const worker = await startProcess('worker', { ...env, PORT: String(await freePort()) }, 'generation worker running');
  const admin = await startProcess(
    'admin',
    { ...env, DATABASE_URL: '', ADMIN_PORT: String(await freePort()), BACKEND_API_URL: `http://127.0.0.1:${port}` },
    'admin proxy listening',
  );
  const base = `http://127.0.0.1:${port}`;
  const headers = { 'x-api-key': SERVICE_KEY };

  const created = await call(`${base}/nft/collections`, { headers, body: { title: 'Traced', data: sampleData() } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const collectionId = created.body.data.collection.id as string;
  const submitted = await call(`${base}/api/jobs`, { headers, body: { collection_id: collectionId, variables: { animal: 'owl' } } });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  const jobId = submitted.body.data.jobId as string;
  await waitFor('job completed', async () =>
    (await call(`${base}/api/jobs/${jobId}`, { headers })).body.data?.status === 'completed' ? true : undefined,
  );
  const bad = await call(`${base}/api/jobs`, { headers, body: { variables: {} } });
  assert.equal(bad.status, 400);
  assert.match(JSON.stringify(bad.body), /collection_id/);

  const tested = await call(`${base}/workflows/procedural/test`, { headers, body: { inputs: { prompt: 'a lamp', seed: 3 } } });
  assert.equal(tested.status, 200, JSON.stringify(tested.body));

  const find = (name: string, pred: (s: OtlpSpan) => boolean = () => true) => collector.spans.find((s) => s.name === name && pred(s));
  await waitFor(
    'spans',
    async () => (find('job.process', (s) => s.attributes['job.id'] === jobId) && find('workflow.execute') ? true : undefined),
    20_000,
  );

  const submit = find('job.submit', (s) => s.attributes['job.id'] === jobId)!;
  assert.ok(submit, 'job.submit span');
  assert.equal(submit.service, 'atelier-backend');
  const job = (await call(`${base}/api/jobs/${jobId}`, { headers })).body.data;
  assert.equal(submit.attributes['job.workflow_id'], job.workflow_id);
  assert.equal(submit.attributes['job.type'], 'collection_generation');
  const processed = find('job.process', (s) => s.attributes['job.id'] === jobId)!;
  assert.equal(processed.service, 'atelier-worker');
  // One trace from the backend's submission to the worker process's step.
  assert.equal(processed.traceId, submit.traceId);
  assert.equal(processed.parentSpanId, submit.spanId);

  const exec = find('workflow.execute')!;
  assert.equal(exec.service, 'atelier-backend');
  assert.equal(exec.attributes['http.method'], 'POST');
  assert.equal(exec.attributes['http.route'], '/workflows/:id/test');
  assert.equal(exec.attributes['http.status_code'], 200);
  assert.equal(exec.attributes['workflow.id'], job.workflow_id);
  // The same workflow ran in both: its type is what the step required of the worker.
  assert.equal(typeof exec.attributes['workflow.type'], 'string');
  assert.equal(processed.attributes['job.service_required'], exec.attributes['workflow.type']);
  assert.equal(typeof exec.attributes['workflow.name'], 'string');
  assert.equal(exec.attributes.error, false);

  for (const service of ['atelier-backend', 'atelier-worker', 'atelier-admin']) {
    const beat = find('service.heartbeat', (s) => s.service === service);
    assert.ok(beat, `heartbeat from ${service}`);
    assert.equal(beat!.attributes['service.status'], 'running');
    assert.equal(typeof beat!.attributes['service.uptime_seconds'], 'number');
  }
  assert.deepEqual([...collector.contentTypes], ['application/json']);
  void backend;
  void worker;
  void admin;
});

test('npm start (everything in one process): a heartbeat for each service it runs, and job spans in one trace', async () => {
  const [port, adminPort] = [await freePort(), await freePort()];
  const startDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-otel-start-'));
  try {
    const child = await startProcess(
      'start',
      {
        DATABASE_URL: '',
        REDIS_URL: '',
        API_KEY: SERVICE_KEY,
        PORT: String(port),
        ADMIN_PORT: String(adminPort),
        DATA_DIR: startDir,
        DEV_CHAIN: 'false',
        LOG_LEVEL: 'warn',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.server.address() as AddressInfo).port}`,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      'send it as',
    );
    const base = `http://127.0.0.1:${port}`;
    const headers = { 'x-api-key': SERVICE_KEY };
    const created = await call(`${base}/nft/collections`, { headers, body: { title: 'All in one', data: sampleData() } });
    const submitted = await call(`${base}/api/jobs`, { headers, body: { collection_id: created.body.data.collection.id } });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const jobId = submitted.body.data.jobId as string;
    const spans = () => collector.spans.filter((s) => s.service === 'atelier');
    await waitFor('job.process in npm start', async () =>
      spans().some((s) => s.name === 'job.process' && s.attributes['job.id'] === jobId) ? true : undefined,
    );
    const beats = new Set(
      spans()
        .filter((s) => s.name === 'service.heartbeat')
        .map((s) => s.attributes['service.name']),
    );
    // No chain configured (DEV_CHAIN=false, no NFT_RPC_URL): no indexer runs, so none beats.
    assert.deepEqual([...beats].sort(), ['admin', 'backend', 'worker']);
    const submit = spans().find((s) => s.name === 'job.submit' && s.attributes['job.id'] === jobId)!;
    const processed = spans().find((s) => s.name === 'job.process' && s.attributes['job.id'] === jobId)!;
    assert.equal(processed.traceId, submit.traceId);
    await stop(child.child);
  } finally {
    fs.rmSync(startDir, { recursive: true, force: true });
  }
});
