/** RPC URL lists and the ranked fallback: which endpoint is asked first, what moves on to the next. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPublicClient, custom, HttpRequestError, RpcRequestError, TimeoutError } from 'viem';
import { anvil } from 'viem/chains';
import { EndpointHealth, isEndpointFailure, primaryRpcUrl, rankedFallback, rpcUrlList } from './rpc-transport.ts';

const URL = 'http://rpc.test';
const limited = () => new HttpRequestError({ url: URL, status: 429, details: 'Too Many Requests' });
const reverted = () => new RpcRequestError({ url: URL, body: {}, error: { code: 3, message: 'execution reverted' } });

/** A fake endpoint: answers its block number, or throws what `fail()` gives; counts its calls. */
function endpoint(block: number) {
  const state = { calls: 0, fail: undefined as undefined | (() => Error) };
  const transport = custom({
    async request({ method }) {
      state.calls++;
      if (state.fail) throw state.fail();
      if (method === 'eth_blockNumber') return `0x${block.toString(16)}`;
      throw new Error(`unexpected ${method}`);
    },
  });
  return { state, transport };
}

function clientOver(endpoints: Array<ReturnType<typeof endpoint>>, health: EndpointHealth) {
  return createPublicClient({
    chain: anvil,
    cacheTime: 0,
    transport: rankedFallback(
      endpoints.map((e) => e.transport),
      health,
      { retryCount: 0, retryDelay: 1 },
    ),
  });
}

describe('RPC URL lists', () => {
  test('one URL or several, comma-separated, spaces ignored', () => {
    assert.deepEqual(rpcUrlList('http://a'), ['http://a']);
    assert.deepEqual(rpcUrlList(' http://a , http://b,,'), ['http://a', 'http://b']);
    assert.equal(primaryRpcUrl('http://a,http://b'), 'http://a');
  });

  test('endpoint failures are transport failures and rate limits, not the node answering', () => {
    assert.equal(isEndpointFailure(limited()), true);
    assert.equal(isEndpointFailure(new HttpRequestError({ url: URL, details: 'fetch failed' })), true);
    assert.equal(isEndpointFailure(new TimeoutError({ url: URL, body: {} })), true);
    assert.equal(isEndpointFailure(Object.assign(new Error('limit exceeded'), { code: -32005 })), true);
    assert.equal(isEndpointFailure(reverted()), false);
    assert.equal(isEndpointFailure(Object.assign(new Error('nonce too low'), { code: -32000 })), false);
  });
});

describe('endpoint health', () => {
  test('the configured order while nothing failed; fewest recent failures first; failures age out', () => {
    let now = 1_000_000;
    const h = new EndpointHealth(3, 60_000, () => now);
    assert.deepEqual(h.order(), [0, 1, 2]);
    h.failed(0);
    assert.deepEqual(h.order(), [1, 2, 0]);
    h.failed(1);
    h.failed(1);
    assert.deepEqual(h.order(), [2, 0, 1]);
    now += 30_000;
    h.failed(2);
    assert.deepEqual(h.order(), [0, 2, 1], 'ties keep the configured order');
    now += 30_001; // the failures of 0 and 1 are older than the window
    assert.deepEqual(h.order(), [0, 1, 2]);
    assert.equal(h.recent(2), 1);
  });
});

describe('ranked fallback', () => {
  test('a failing first endpoint: the request is answered by the next, and the next request asks it first', async () => {
    const a = endpoint(1);
    const b = endpoint(2);
    const health = new EndpointHealth(2);
    const client = clientOver([a, b], health);
    assert.equal(await client.getBlockNumber(), 1n);
    a.state.fail = limited;
    assert.equal(await client.getBlockNumber(), 2n);
    assert.deepEqual([a.state.calls, b.state.calls], [2, 1]);
    assert.deepEqual(health.order(), [1, 0]);
    // The limited endpoint is not asked while the healthy one answers.
    a.state.fail = undefined;
    assert.equal(await client.getBlockNumber(), 2n);
    assert.equal(await client.getBlockNumber(), 2n);
    assert.deepEqual([a.state.calls, b.state.calls], [2, 3]);
    // When the preferred one fails too, the other is still tried.
    b.state.fail = () => new HttpRequestError({ url: URL, status: 503 });
    assert.equal(await client.getBlockNumber(), 1n);
  });

  test("the node's answer is the answer: a JSON-RPC error is not sent to the next endpoint", async () => {
    const a = endpoint(1);
    const b = endpoint(2);
    const health = new EndpointHealth(2);
    a.state.fail = reverted;
    await assert.rejects(clientOver([a, b], health).getBlockNumber(), /execution reverted/);
    assert.equal(b.state.calls, 0);
    assert.deepEqual(health.order(), [0, 1], 'an answer is no failure of the endpoint');
  });

  test('every endpoint failing: the last failure is thrown', async () => {
    const a = endpoint(1);
    const b = endpoint(2);
    a.state.fail = limited;
    b.state.fail = () => new HttpRequestError({ url: URL, status: 502, details: 'Bad Gateway' });
    await assert.rejects(clientOver([a, b], new EndpointHealth(2)).getBlockNumber(), /Bad Gateway/);
    assert.deepEqual([a.state.calls, b.state.calls], [1, 1]);
  });
});
