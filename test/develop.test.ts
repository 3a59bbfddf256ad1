/** Develop routes (docs/api/content.md §4.1): a completed output transformed by a global collection. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { collections, outputs } from '../src/db/schema/index.ts';
import { client, svc } from './helpers/content.ts';
import { startJobsPlatform, waitFor, type JobsPlatform } from './helpers/jobs.ts';
import { sampleData } from './helpers/platform.ts';

let p: JobsPlatform;
let api: ReturnType<typeof client>;
before(async () => {
  p = await startJobsPlatform('in-process');
  api = client(p);
});
after(() => p.close());

const job = (id: string) =>
  waitFor(`job ${id}`, async () => {
    const j = (await api(`/api/jobs/${id}`, svc())).body.data;
    return ['completed', 'failed'].includes(j.status) ? j : undefined;
  });

test('develop a completed output with a global collection; list develop collections by input type', async () => {
  const src = (await api('/nft/collections', svc('dev'), { body: { title: 'Source', data: sampleData() } })).body.data.collection.id;
  const glob = (await api('/nft/collections', svc('dev'), { body: { title: 'Restyle', data: sampleData() } })).body.data.collection.id;
  const local = (await api('/nft/collections', svc('dev'), { body: { title: 'Local', data: sampleData() } })).body.data.collection.id;
  await p.database.db
    .update(collections)
    .set({ is_global: true, input_type: 'image', output_type: 'image' })
    .where(eq(collections.id, glob));

  const list = await api('/outputs/develop/collections?input_type=image', svc('dev'));
  assert.equal(list.status, 200);
  assert.deepEqual(
    list.body.data.map((c: any) => c.id),
    [glob],
  );
  assert.deepEqual(Object.keys(list.body.data[0]).sort(), ['cover_image_url', 'description', 'id', 'input_type', 'output_type', 'title']);
  assert.deepEqual((await api('/outputs/develop/collections?input_type=video', svc('dev'))).body.data, []);
  assert.equal((await api('/outputs/develop/collections?input_type=audio', svc('dev'))).status, 400);

  const gen = await api(`/api/collections/${src}/generate`, svc('dev'), { body: { variables: {} } });
  const first = await job(gen.body.data.jobId);
  const source = (await api(`/outputs/${first.output_id}`, svc('dev'))).body.data;

  const notGlobal = await api(`/outputs/${source.id}/develop`, svc('dev'), { body: { collection_id: local } });
  assert.equal(notGlobal.status, 400);
  assert.match(notGlobal.body.error, /^body\.collection_id: .*not a global collection/);

  const res = await api(`/outputs/${source.id}/develop`, svc('dev'), { body: { collection_id: glob, variables: { color: 'red' } } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const d = res.body.data;
  assert.equal(d.status, 'pending');
  assert.deepEqual(d.develop_collection, { id: glob, title: 'Restyle', input_type: 'image', output_type: 'image' });
  assert.deepEqual(d.source_output, { id: source.id, url: source.url, mime_type: 'image/png' });
  const developed = await job(d.job_id);
  assert.equal(developed.status, 'completed');
  const [o] = await p.database.db.select().from(outputs).where(eq(outputs.id, d.output_id));
  assert.equal(o!.parent_output_id, source.id);
  assert.equal(o!.deck_id, source.deck_id);
  assert.equal(o!.collection_id, src);
  assert.equal(o!.status, 'completed');

  await p.database.db.update(outputs).set({ status: 'failed' }).where(eq(outputs.id, d.output_id));
  const notDone = await api(`/outputs/${d.output_id}/develop`, svc('dev'), { body: { collection_id: glob } });
  assert.equal(notDone.status, 409);
  assert.equal((await api(`/outputs/${source.id}/develop`, {}, { body: { collection_id: glob } })).status, 401);
  assert.equal((await api(`/outputs/${source.id}/develop`, svc('dev'), { body: {} })).status, 400);
});
