/**
 * A FAKE Kubo node (not Kubo): the RPC API's HTTP protocol for the three calls the pin target
 * makes, as Kubo's RPC reference documents them — every call is a POST under /api/v0 (any other
 * method is 405), arguments in the query string, errors as 500 `{Message, Code, Type: "error"}`:
 * - `dag/import` takes the CAR as a multipart/form-data file, really imports it (blocks parsed
 *   with @ipld/car and re-hashed, test/fakes/ipfs-blocks.ts) and, with `pin-roots=true`, pins each
 *   root whose DAG is complete, streaming one NDJSON line per root:
 *   `{"Root":{"Cid":{"/":"<cid>"},"PinErrorMsg":""}}` (the message says why a root was not pinned);
 * - `cat?arg=<cid>/<path>` answers the file's bytes, resolved by path with ipfs-unixfs-exporter;
 * - `block/get?arg=<cid>` answers a block's raw bytes.
 * With `authorization` set, requests without that exact Authorization header are 401 (Kubo's
 * `API.Authorizations`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeBlocks } from './ipfs-blocks.ts';

export interface KuboRpcFake {
  url: string;
  blocks: FakeBlocks;
  /** Roots pinned by dag/import. */
  pins: Set<string>;
  /** `<method> <command>` of every request. */
  calls: string[];
  close(): Promise<void>;
}

function multipartFiles(body: Buffer, contentType: string): Buffer[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) throw new Error('multipart/form-data without a boundary');
  const delim = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const files: Buffer[] = [];
  let pos = body.indexOf(delim);
  while (pos !== -1) {
    const start = pos + delim.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delim]), start);
    if (next === -1) throw new Error('unterminated multipart part');
    const part = body.subarray(start + 2, next);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd === -1) throw new Error('multipart part without headers');
    const headers = part.subarray(0, headerEnd).toString('latin1');
    if (/name="file/i.test(headers)) files.push(part.subarray(headerEnd + 4));
    pos = next + 2;
  }
  return files;
}

export async function startKuboRpcFake(opts: { authorization?: string } = {}): Promise<KuboRpcFake> {
  const blocks = new FakeBlocks();
  const pins = new Set<string>();
  const calls: string[] = [];
  const fail = (res: http.ServerResponse, status: number, message: string) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ Message: message, Code: 0, Type: 'error' }));

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const command = url.pathname.replace(/^\/api\/v0\//, '');
    calls.push(`${req.method} ${command}`);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (!url.pathname.startsWith('/api/v0/')) return res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
    if (req.method !== 'POST') return res.writeHead(405, { 'content-type': 'text/plain' }).end(`405 - Method Not Allowed: ${req.method}`);
    if (opts.authorization && req.headers.authorization !== opts.authorization) {
      return res.writeHead(401, { 'content-type': 'text/plain' }).end('401 Unauthorized');
    }
    try {
      if (command === 'dag/import') {
        const files = multipartFiles(Buffer.concat(chunks), String(req.headers['content-type'] ?? ''));
        if (files.length === 0) return fail(res, 400, 'file argument "path" is required');
        const pinRoots = url.searchParams.get('pin-roots') === 'true';
        const lines: string[] = [];
        for (const file of files) {
          let roots;
          try {
            roots = await blocks.importCar(file);
          } catch (err) {
            return fail(res, 500, `failed to import CAR: ${(err as Error).message}`);
          }
          for (const root of roots) {
            let error = '';
            if (pinRoots) {
              const missing = blocks.missingUnder(root);
              if (missing) error = `block was not found locally (offline): ipld: could not find ${missing}`;
              else pins.add(root.toString());
            }
            if (pinRoots) lines.push(JSON.stringify({ Root: { Cid: { '/': root.toString() }, PinErrorMsg: error } }));
          }
        }
        res.writeHead(200, { 'content-type': 'application/json', 'x-chunked-output': '1' });
        return res.end(lines.map((l) => `${l}\n`).join(''));
      }
      if (command === 'cat') {
        const arg = url.searchParams.get('arg');
        if (!arg) return fail(res, 400, 'argument "ipfs-path" is required');
        const found = await blocks.cat(arg);
        if (!found.ok) return fail(res, 500, found.message);
        return res.writeHead(200, { 'content-type': 'text/plain', 'x-stream-output': '1' }).end(found.bytes);
      }
      if (command === 'block/get') {
        const arg = url.searchParams.get('arg');
        if (!arg) return fail(res, 400, 'argument "cid" is required');
        const block = blocks.block(arg);
        if (!block) return fail(res, 500, `block was not found locally (offline): ipld: could not find ${arg}`);
        return res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.from(block));
      }
      return res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
    } catch (err) {
      return fail(res, 500, (err as Error).message);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    blocks,
    pins,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
