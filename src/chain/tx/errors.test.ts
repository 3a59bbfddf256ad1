/**
 * The classifier against the errors viem really throws: each case runs a viem client whose HTTP
 * transport answers like a node (a JSON-RPC error body, an HTTP status, a refused connection, a
 * request that never answers), so the error object, its wrapping and cause chain are viem's own.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPublicClient, http, type Hex } from 'viem';
import { anvil } from 'viem/chains';
import { classifyError, describeError } from './errors.ts';

const WALLET = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
// Any bytes do: the fake node answers before anything reads them.
const RAW: Hex = '0x02f86d827a6980843b9aca00847735940082520894f39fd6e51aad88f6f4ce6ab8827279cfffb9226680c001a0';

type Answer = (body: { id: number; method: string }, signal?: AbortSignal) => Promise<Response>;

function node(answer: Answer, opts: { url?: string; timeout?: number } = {}) {
  return createPublicClient({
    chain: anvil,
    transport: http(opts.url ?? 'http://127.0.0.1:8545', {
      retryCount: 0,
      timeout: opts.timeout ?? 2_000,
      fetchFn: (_url, init) => answer(JSON.parse(String(init?.body)), init?.signal ?? undefined),
    }),
  });
}

/** A node that answers every call with this JSON-RPC error (HTTP 200 unless given). */
const rpcError = (error: { code: number; message: string; data?: Hex }, status = 200) =>
  node(async (body) => new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, error }), { status }));

const httpStatus = (status: number, text: string, url?: string) => node(async () => new Response(text, { status }), { url });

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  return assert.fail('the call was expected to fail');
}

const broadcastError = (c: ReturnType<typeof node>) => rejection(c.sendRawTransaction({ serializedTransaction: RAW }));

describe('classifyError: what a broadcast refusal means', () => {
  test('nonce too low (anvil -32003, geth -32000 with details)', async () => {
    assert.equal(classifyError(await broadcastError(rpcError({ code: -32003, message: 'nonce too low' }))), 'nonce-too-low');
    const geth = await broadcastError(rpcError({ code: -32000, message: 'nonce too low: next nonce 7, tx nonce 5' }));
    assert.equal(classifyError(geth), 'nonce-too-low');
  });

  test('already known: the node has this exact transaction', async () => {
    assert.equal(classifyError(await broadcastError(rpcError({ code: -32000, message: 'already known' }))), 'already-known');
  });

  test('replacement underpriced: another transaction holds the nonce in the pool', async () => {
    const err = await broadcastError(rpcError({ code: -32000, message: 'replacement transaction underpriced' }));
    assert.equal(classifyError(err), 'underpriced');
  });

  test('max fee below the base fee: sign again with fresh fees', async () => {
    const err = await broadcastError(
      rpcError({
        code: -32000,
        message: `max fee per gas less than block base fee: address ${WALLET}, maxFeePerGas: 1, baseFee: 875000000`,
      }),
    );
    assert.equal(classifyError(err), 'fee-too-low');
  });

  test('the node words win over an HTTP 500 status', async () => {
    assert.equal(classifyError(await broadcastError(rpcError({ code: -32000, message: 'nonce too low' }, 500))), 'nonce-too-low');
  });
});

describe('classifyError: permanent failures fail at once', () => {
  test('insufficient funds, intrinsic gas too low', async () => {
    const funds = await broadcastError(rpcError({ code: -32003, message: 'Insufficient funds for gas * price + value' }));
    assert.equal(classifyError(funds), 'permanent');
    assert.equal(classifyError(await broadcastError(rpcError({ code: -32000, message: 'intrinsic gas too low' }))), 'permanent');
  });

  test('a revert at gas estimation', async () => {
    const err = await rejection(
      rpcError({ code: 3, message: 'execution reverted', data: '0x' }).estimateGas({ account: WALLET, to: WALLET, data: '0x12345678' }),
    );
    assert.equal((err as Error).name, 'EstimateGasExecutionError');
    assert.equal(classifyError(err), 'permanent');
  });

  test('an HTTP 400 or 401: asking again gets the same answer', async () => {
    assert.equal(classifyError(await rejection(httpStatus(400, 'bad request').getBlockNumber())), 'permanent');
    assert.equal(classifyError(await rejection(httpStatus(401, 'unauthorized').getBlockNumber())), 'permanent');
  });

  test('an error that is not an object', () => {
    assert.equal(classifyError('boom'), 'permanent');
    assert.equal(classifyError(undefined), 'permanent');
  });
});

describe('classifyError: transient failures are retried', () => {
  test('HTTP 429, 502, 503, 504', async () => {
    for (const status of [429, 502, 503, 504]) {
      const err = await rejection(httpStatus(status, 'try later').getBlockNumber());
      assert.equal(classifyError(err), 'transient', `HTTP ${status}`);
    }
  });

  test('connection refused (fetch failed, ECONNREFUSED in the cause)', async () => {
    const refused = node(async () => {
      const sys = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8545'), { code: 'ECONNREFUSED', syscall: 'connect' });
      throw new TypeError('fetch failed', { cause: sys });
    });
    const err = await rejection(refused.getBlockNumber());
    assert.equal((err as Error).name, 'HttpRequestError');
    assert.equal(classifyError(err), 'transient');
  });

  test('a request that never answers (viem TimeoutError)', async () => {
    const silent = node(
      (_body, signal) => new Promise<Response>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
      { timeout: 30 },
    );
    const err = await rejection(silent.getBlockNumber());
    assert.equal((err as Error).name, 'TimeoutError');
    assert.equal(classifyError(err), 'transient');
  });

  test('JSON-RPC -32005 (limit exceeded) and a 429 code', async () => {
    assert.equal(classifyError(await rejection(rpcError({ code: -32005, message: 'limit exceeded' }).getBlockNumber())), 'transient');
    assert.equal(classifyError(await rejection(rpcError({ code: 429, message: 'slow down' }).getBlockNumber())), 'transient');
  });

  test('a lagging node behind a load balancer: -32000 "header not found"', async () => {
    // viem calls every -32000 "Missing or invalid parameters."; only the node's words count.
    const err = await rejection(rpcError({ code: -32000, message: 'header not found' }).getBlockNumber());
    assert.equal(classifyError(err), 'transient');
  });

  test('the request URL never decides (a host or API key may contain any word)', async () => {
    const err = await rejection(httpStatus(503, 'unavailable', 'https://invalid-revert.example/v2/key').getBlockNumber());
    assert.equal(classifyError(err), 'transient');
  });
});

describe('describeError', () => {
  test("one line: viem's summary and the node's words, no URL or request body", async () => {
    const err = await broadcastError(rpcError({ code: -32000, message: 'replacement transaction underpriced' }));
    const text = describeError(err);
    assert.match(text, /replacement transaction underpriced/);
    assert.doesNotMatch(text, /\n/);
    assert.doesNotMatch(text, /127\.0\.0\.1|eth_sendRawTransaction|0x02f8/);
  });

  test("no NUL or other control character: anvil renders a custom error's arguments as their raw bytes", async () => {
    // ERC721InvalidReceiver(address(0)) as anvil words it: the zero argument is 32 NUL characters,
    // which the row's text column refuses (the row then stayed `queued`, the request a 500).
    const nul = '\u0000'.repeat(32);
    const err = await rejection(
      rpcError({
        code: 3,
        message: `execution reverted: custom error 0x64a0ae92: ${nul}`,
        data: `0x64a0ae92${'0'.repeat(64)}`,
      }).estimateGas({
        account: WALLET,
        to: WALLET,
      }),
    );
    assert.match(String((err as Error).message), /\u0000/, 'the node really sent NUL characters');
    const text = describeError(err);
    assert.match(text, /custom error 0x64a0ae92/);
    assert.doesNotMatch(text, /[\u0000-\u001f\u007f]/);
    assert.equal(describeError(new Error('a\tb\u0000c')), 'a bc');
  });

  test('a plain error: its first line; anything else: its string form; at most 1000 characters', () => {
    assert.equal(describeError(new Error('first\nsecond')), 'first');
    assert.equal(describeError('boom'), 'boom');
    assert.equal(describeError(new Error('x'.repeat(5000))).length, 1000);
  });
});
