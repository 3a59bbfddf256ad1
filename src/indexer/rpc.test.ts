/** The indexer's JSON-RPC client over several URLs: which failures move on to the next endpoint. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { JsonRpc, RpcError } from './rpc.ts';

type Answer = (body: { id: number; method: string }) => { status: number; json?: unknown };

const servers: http.Server[] = [];
after(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

/** A JSON-RPC endpoint on loopback answering with `answer`; counts the requests it got. */
async function endpoint(answer: Answer): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      hits++;
      const a = answer(JSON.parse(text));
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.json ?? {}));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

const head =
  (n: number): Answer =>
  (b) => ({ status: 200, json: { jsonrpc: '2.0', id: b.id, result: `0x${n.toString(16)}` } });

test('an endpoint answering 503 or 429 hands the call to the next; the client stays on the one that answered', async () => {
  const down = await endpoint(() => ({ status: 503 }));
  const limited = await endpoint(() => ({ status: 429 }));
  const up = await endpoint(head(42));
  const rpc = new JsonRpc([down.url, limited.url, up.url]);
  assert.equal(await rpc.call<string>('eth_blockNumber', []), '0x2a');
  assert.equal(rpc.url, up.url);
  assert.equal(await rpc.call<string>('eth_blockNumber', []), '0x2a');
  assert.equal(down.hits(), 1, 'the failed endpoint is not asked again while the next one answers');
});

test('an unreachable endpoint moves on too; when every endpoint fails, the last failure is thrown', async () => {
  const up = await endpoint(head(7));
  const rpc = new JsonRpc(['http://127.0.0.1:1', up.url], 2000);
  assert.equal(await rpc.call<string>('eth_blockNumber', []), '0x7');
  const down = await endpoint(() => ({ status: 502 }));
  const all = new JsonRpc([down.url, 'http://127.0.0.1:1'], 2000);
  await assert.rejects(all.call('eth_blockNumber', []));
});

test("a JSON-RPC error or a 400 is the chain's answer: no other endpoint is asked", async () => {
  const refuses = await endpoint((b) => ({
    status: 200,
    json: { jsonrpc: '2.0', id: b.id, error: { code: -32005, message: 'range too large' } },
  }));
  const other = await endpoint(head(1));
  const rpc = new JsonRpc([refuses.url, other.url]);
  await assert.rejects(rpc.call('eth_getLogs', [{}]), (e: unknown) => e instanceof RpcError && e.code === -32005);
  const bad = await endpoint(() => ({ status: 400 }));
  const rpc2 = new JsonRpc([bad.url, other.url]);
  await assert.rejects(rpc2.call('eth_blockNumber', []), (e: unknown) => e instanceof RpcError && e.code === 400);
  assert.equal(other.hits(), 0);
});
