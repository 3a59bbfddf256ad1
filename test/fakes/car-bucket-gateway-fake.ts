/**
 * A FAKE of the IPFS side of an S3-compatible bucket that imports CARs (Filebase style; not
 * Filebase): the bucket itself is a real S3-compatible server (s3rver, in the test); this fake is
 * the service's gateway. Before answering, it reads every object whose user metadata says
 * `import: car` (ListObjectsV2, HeadObject, GetObject through the S3 API), imports it (every
 * block re-hashed, test/fakes/ipfs-blocks.ts) and serves `GET /ipfs/<cid>/<path>` (a file) and
 * `GET /ipfs/<cid>?format=raw` (a block) from what it imported. It does not write the `cid`
 * metadata a real bucket adds (s3rver keeps metadata as put).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { FakeBlocks } from './ipfs-blocks.ts';

export interface CarBucketGatewayFake {
  url: string;
  blocks: FakeBlocks;
  /** Object keys imported as CARs. */
  imported: Set<string>;
  close(): Promise<void>;
}

export async function startCarBucketGatewayFake(s3: S3Client, bucket: string): Promise<CarBucketGatewayFake> {
  const blocks = new FakeBlocks();
  const imported = new Set<string>();

  async function importNew() {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    for (const { Key } of listed.Contents ?? []) {
      if (!Key || imported.has(Key)) continue;
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key }));
      if (head.Metadata?.import !== 'car') continue;
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key }));
      await blocks.importCar((await object.Body?.transformToByteArray()) ?? new Uint8Array());
      imported.add(Key);
    }
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method !== 'GET' || !url.pathname.startsWith('/ipfs/')) return res.writeHead(404).end();
    try {
      await importNew();
    } catch (err) {
      return res.writeHead(502, { 'content-type': 'text/plain' }).end(`import failed: ${(err as Error).message}`);
    }
    const [cid, ...path] = url.pathname.slice('/ipfs/'.length).split('/').map(decodeURIComponent);
    if (url.searchParams.get('format') === 'raw') {
      const block = path.filter(Boolean).length === 0 ? blocks.block(cid ?? '') : undefined;
      if (!block) return res.writeHead(404, { 'content-type': 'text/plain' }).end('block not found');
      return res.writeHead(200, { 'content-type': 'application/vnd.ipld.raw' }).end(Buffer.from(block));
    }
    const found = await blocks.cat([cid, ...path].join('/'));
    if (!found.ok) return res.writeHead(404, { 'content-type': 'text/plain' }).end(found.message);
    return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(found.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    blocks,
    imported,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
