/**
 * Reference images end to end: an uploaded image named in ref_image_1 is drawn into the generated
 * picture; a URL into our own network is never fetched (placeholder tile instead), whether it
 * names a loopback address, a host name that resolves to loopback (the resolver is injected), or
 * redirects there from an allowed origin (OUTSIDE_FETCH_ALLOW_ORIGINS): the internal listener
 * records no connection.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { outputs } from '../src/db/schema/index.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Resolver } from '../src/net/guarded-fetch.ts';
import { startJobsPlatform, waitForJobEnd, type JobsPlatform } from './helpers/jobs.ts';
import { asService, call, sampleData } from './helpers/platform.ts';

let p: JobsPlatform;
let internal: http.Server;
let internalConnections = 0;
let allowed: http.Server;
let allowedOrigin = '';
let internalPort = 0;
const allowedPaths: string[] = [];
let green: Buffer;

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

before(async () => {
  green = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#00ff00' } })
    .png()
    .toBuffer();
  // Stands in for an internal service (a cloud metadata endpoint, an admin port).
  internal = http.createServer((_req, res) => res.end(green));
  internal.on('connection', () => internalConnections++);
  internalPort = await listen(internal);
  // An origin the operator allowed (a dev file host on loopback): serves an image, and redirects.
  allowed = http.createServer((req, res) => {
    allowedPaths.push(req.url!);
    if (req.url === '/go-internal') res.writeHead(302, { location: `http://127.0.0.1:${internalPort}/secret.png` }).end();
    else res.writeHead(200, { 'content-type': 'image/png' }).end(green);
  });
  allowedOrigin = `http://127.0.0.1:${await listen(allowed)}`;
  // rebind.test resolves to loopback, as a hostile DNS name would.
  const resolve: Resolver = async (host) => (host === 'rebind.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
  p = await startJobsPlatform('in-process', { env: { OUTSIDE_FETCH_ALLOW_ORIGINS: allowedOrigin }, resolve });
});
after(async () => {
  await p.close();
  internal.close();
  allowed.close();
});

test('an uploaded reference image is drawn into the picture; an internal URL is not fetched', async () => {
  const red = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
  const up = await call(`${p.backendUrl}/upload-base64`, {
    headers: asService({ user_id: 'ref-user' }),
    body: { base64Data: red.toString('base64'), mimeType: 'image/png', create_flat_file: true, rel_type: 'nft_ref_image' },
  });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  const created = await call(`${p.backendUrl}/nft/collections`, {
    headers: asService({ user_id: 'ref-user' }),
    body: { title: 'Refs', data: sampleData() },
  });
  const id = created.body.data.collection.id;
  const gen = await call(`${p.backendUrl}/api/collections/${id}/generate`, {
    headers: asService({ user_id: 'ref-user' }),
    body: {
      variables: {
        ref_image_1: up.body.data.url,
        ref_image_2: `http://127.0.0.1:${internalPort}/private.png`,
        ref_image_3: `http://rebind.test:${internalPort}/private.png`,
        ref_image_4: `${allowedOrigin}/go-internal`,
        ref_image_5: `${allowedOrigin}/green.png`,
      },
    },
  });
  assert.ok([200, 202].includes(gen.status), JSON.stringify(gen.body));
  const jobId = gen.body.data.jobId;
  const job = await waitForJobEnd(p, jobId);
  assert.equal(job.status, 'completed', job.error_message ?? '');
  const [out] = await p.database.db.select().from(outputs).where(eq(outputs.job_id, jobId));
  const refs = (
    out!.output_metadata as { reference_images: Array<{ name: string; drawn: boolean; left: number; top: number; size: number }> }
  ).reference_images;
  const r1 = refs.find((r) => r.name === 'ref_image_1')!;
  const r2 = refs.find((r) => r.name === 'ref_image_2')!;
  assert.equal(r1.drawn, true);
  assert.equal(r2.drawn, false, 'a URL into our own network is never fetched');
  const drawn = (name: string) => refs.find((r) => r.name === name)!.drawn;
  assert.equal(drawn('ref_image_3'), false, 'a name resolving to loopback is refused at connect time');
  assert.equal(drawn('ref_image_4'), false, 'a redirect from an allowed origin to loopback is refused');
  assert.equal(drawn('ref_image_5'), true, 'the allowed origin itself is fetched');
  assert.deepEqual(allowedPaths.sort(), ['/go-internal', '/green.png']);
  assert.equal(internalConnections, 0, 'no connection reached the internal listener');

  const key = p.storage.keyFromUrl(out!.url!) ?? out!.url!;
  const png = (await p.storage.get(key))!.bytes;
  const { data } = await sharp(png)
    .extract({ left: r1.left + Math.floor(r1.size / 2), top: r1.top + Math.floor(r1.size / 2), width: 1, height: 1 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  assert.deepEqual([...data.subarray(0, 3)], [255, 0, 0], 'the red reference sits in its tile');
});
