/**
 * A FAKE remote pinning service (not a real one): the IPFS Pinning Service API as its OpenAPI
 * document describes it, for the calls the pin target makes, plus the service's HTTP gateway.
 * - `POST /pins` with `Authorization: Bearer <token>` and `{cid, name?, origins?, meta?}` answers
 *   202 with a PinStatus `{requestid, status: "queued", created, pin, delegates, info}`; a missing
 *   or wrong token is 401 and a bad body 400, both as `{error: {reason, details}}`.
 * - The service then fetches the DAG itself, as a real one fetches over the IPFS network: from each
 *   origin multiaddr that names an HTTP(S) endpoint (`/ip4|ip6|dns|dns4|dns6/<host>/tcp/<port>/http|https`)
 *   it asks `GET /ipfs/<cid>?format=car` (Accept `application/vnd.ipld.car`), imports the CAR
 *   (every block re-hashed, test/fakes/ipfs-blocks.ts) and needs the whole DAG under the CID.
 * - `GET /pins/<requestid>` answers the PinStatus: `pinning` while fetching and until it has been
 *   polled `pollsBeforePinned` times, then `pinned` (or `failed`, with `info.status_details`).
 * - The gateway: `GET /ipfs/<cid>/<path>` answers a file of a held DAG; `GET /ipfs/<cid>?format=raw`
 *   (or Accept `application/vnd.ipld.raw`) a block. `blocks.alter(root, path)` makes it answer
 *   other bytes for one path.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CID } from 'multiformats/cid';
import { FakeBlocks } from './ipfs-blocks.ts';

type Status = 'queued' | 'pinning' | 'pinned' | 'failed';

interface PinRequest {
  requestid: string;
  status: Status;
  created: string;
  pin: { cid: string; name?: string; origins?: string[]; meta?: Record<string, string> };
  delegates: string[];
  info: Record<string, string>;
  polls: number;
  fetched?: 'ok' | string;
}

export interface PinningServiceFake {
  /** The API endpoint (IPFS_PSA_ENDPOINT). */
  endpoint: string;
  /** The gateway (IPFS_PIN_GATEWAY_URL). */
  gateway: string;
  token: string;
  blocks: FakeBlocks;
  requests: Map<string, PinRequest>;
  /** `<method> <path>` of every request, and the Authorization header each carried. */
  calls: { line: string; authorization?: string }[];
  close(): Promise<void>;
}

const DELEGATE = '/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWFakePinningServiceDelegate0000000000000000';

/** `http(s)://host:port` of an HTTP multiaddr, else undefined. */
function httpOrigin(multiaddr: string): string | undefined {
  const m = /^\/(ip4|ip6|dns|dns4|dns6)\/([^/]+)\/tcp\/(\d+)\/(https?)$/.exec(multiaddr);
  if (!m) return undefined;
  const host = m[1] === 'ip6' ? `[${m[2]}]` : m[2];
  return `${m[4]}://${host}:${m[3]}`;
}

export async function startPinningServiceFake(opts: { pollsBeforePinned?: number } = {}): Promise<PinningServiceFake> {
  const token = `psa-fake-${randomUUID()}`;
  const blocks = new FakeBlocks();
  const requests = new Map<string, PinRequest>();
  const calls: { line: string; authorization?: string }[] = [];
  const pollsBeforePinned = opts.pollsBeforePinned ?? 2;

  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const failure = (res: http.ServerResponse, status: number, reason: string, details: string) =>
    json(res, status, { error: { reason, details } });
  const statusOf = (p: PinRequest) => ({
    requestid: p.requestid,
    status: p.status,
    created: p.created,
    pin: p.pin,
    delegates: p.delegates,
    info: p.info,
  });

  /** Fetches the DAG from the origins, as a service would from the network. */
  async function fetchDag(p: PinRequest) {
    const root = CID.parse(p.pin.cid);
    const reasons: string[] = [];
    for (const origin of p.pin.origins ?? []) {
      const base = httpOrigin(origin);
      if (!base) {
        reasons.push(`${origin}: not an HTTP origin`);
        continue;
      }
      try {
        const r = await fetch(`${base}/ipfs/${p.pin.cid}?format=car`, { headers: { accept: 'application/vnd.ipld.car' } });
        if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
        await blocks.importCar(new Uint8Array(await r.arrayBuffer()));
        const missing = blocks.missingUnder(root);
        if (missing) throw new Error(`block ${missing} missing`);
        p.fetched = 'ok';
        return;
      } catch (err) {
        reasons.push(`${origin}: ${(err as Error).message}`);
      }
    }
    p.fetched = `could not fetch ${p.pin.cid}: ${reasons.join('; ') || 'no origins and no providers'}`;
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    calls.push({
      line: `${req.method} ${url.pathname}`,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);

    // The gateway (public, like a service's gateway).
    if (url.pathname.startsWith('/ipfs/')) {
      if (req.method !== 'GET') return res.writeHead(405).end();
      const rest = url.pathname.slice('/ipfs/'.length).split('/').map(decodeURIComponent);
      const [cid, ...path] = rest;
      const raw = url.searchParams.get('format') === 'raw' || String(req.headers.accept ?? '').includes('application/vnd.ipld.raw');
      if (raw) {
        const block = path.filter(Boolean).length === 0 ? blocks.block(cid ?? '') : undefined;
        if (!block) return res.writeHead(404, { 'content-type': 'text/plain' }).end('block not found');
        return res.writeHead(200, { 'content-type': 'application/vnd.ipld.raw' }).end(Buffer.from(block));
      }
      const found = await blocks.cat([cid, ...path].join('/'));
      if (!found.ok) return res.writeHead(404, { 'content-type': 'text/plain' }).end(found.message);
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(found.bytes);
    }

    if (url.pathname !== '/pins' && !url.pathname.startsWith('/pins/')) return failure(res, 404, 'NOT_FOUND', 'no such route');
    if (req.headers.authorization !== `Bearer ${token}`) {
      return failure(res, 401, 'UNAUTHORIZED', 'Access token is missing or invalid');
    }
    if (url.pathname === '/pins' && req.method === 'POST') {
      let body: { cid?: unknown; name?: unknown; origins?: unknown; meta?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return failure(res, 400, 'BAD_REQUEST', 'the body is not JSON');
      }
      if (typeof body.cid !== 'string') return failure(res, 400, 'BAD_REQUEST', 'cid is required');
      try {
        CID.parse(body.cid);
      } catch {
        return failure(res, 400, 'BAD_REQUEST', `${body.cid} is not a CID`);
      }
      if (body.name !== undefined && (typeof body.name !== 'string' || body.name.length > 255)) {
        return failure(res, 400, 'BAD_REQUEST', 'name: a string of at most 255 characters');
      }
      if (
        body.origins !== undefined &&
        (!Array.isArray(body.origins) || body.origins.length > 20 || body.origins.some((o) => typeof o !== 'string'))
      ) {
        return failure(res, 400, 'BAD_REQUEST', 'origins: at most 20 multiaddr strings');
      }
      if (
        body.meta !== undefined &&
        (typeof body.meta !== 'object' || body.meta === null || Object.values(body.meta).some((v) => typeof v !== 'string'))
      ) {
        return failure(res, 400, 'BAD_REQUEST', 'meta: an object of strings');
      }
      const p: PinRequest = {
        requestid: randomUUID(),
        status: 'queued',
        created: new Date().toISOString(),
        pin: {
          cid: body.cid,
          ...(body.name !== undefined ? { name: body.name as string } : {}),
          ...(body.origins !== undefined ? { origins: body.origins as string[] } : {}),
          ...(body.meta !== undefined ? { meta: body.meta as Record<string, string> } : {}),
        },
        delegates: [DELEGATE],
        info: {},
        polls: 0,
      };
      requests.set(p.requestid, p);
      void fetchDag(p);
      return json(res, 202, statusOf(p));
    }
    const id = url.pathname.slice('/pins/'.length);
    if (id && req.method === 'GET') {
      const p = requests.get(decodeURIComponent(id));
      if (!p) return failure(res, 404, 'NOT_FOUND', 'The specified resource was not found');
      p.polls += 1;
      if (p.status === 'queued' || p.status === 'pinning') {
        if (p.fetched === undefined || p.polls < pollsBeforePinned) p.status = 'pinning';
        else if (p.fetched === 'ok') p.status = 'pinned';
        else {
          p.status = 'failed';
          p.info = { status_details: p.fetched };
        }
      }
      return json(res, 200, statusOf(p));
    }
    return failure(res, 400, 'BAD_REQUEST', `${req.method} ${url.pathname} is not supported by this fake`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    endpoint: base,
    gateway: base,
    token,
    blocks,
    requests,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
