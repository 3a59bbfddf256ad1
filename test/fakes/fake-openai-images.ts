/**
 * FAKE OpenAI images API for tests: POST /v1/images/generations with OpenAI's request and
 * response shapes ({created, data: [{b64_json | url, revised_prompt}]}, errors as {error: {...}}).
 * The image is a small PNG made with sharp. A prompt containing "forbidden" gets a 400 like a
 * content-policy rejection; "slow" waits `slowMs` before answering.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

export interface FakeOpenAiOptions {
  apiKey?: string;
  /** Answer with a URL even when b64_json was asked (as some compatible servers do). */
  forceUrl?: boolean;
  slowMs?: number;
  /** Answer the first N requests with 500 (to exercise retryable errors). */
  failFirst?: number;
}

export interface FakeOpenAi {
  url: string;
  requests: Array<{ headers: http.IncomingHttpHeaders; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

const SIZES = new Set(['256x256', '512x512', '1024x1024', '1024x1792', '1792x1024', '1024x1536', '1536x1024']);

export async function startFakeOpenAiImages(opts: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const requests: FakeOpenAi['requests'] = [];
  const files = new Map<string, Buffer>();
  let failures = opts.failFirst ?? 0;
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const error = (
    res: http.ServerResponse,
    status: number,
    message: string,
    type = 'invalid_request_error',
    param: string | null = null,
    code: string | null = null,
  ) => json(res, status, { error: { message, type, param, code } });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname.startsWith('/files/')) {
      const f = files.get(url.pathname.slice('/files/'.length));
      if (!f) return error(res, 404, 'not found');
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(f);
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/images/generations')
      return error(res, 404, `Invalid URL (${req.method} ${url.pathname})`);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
    } catch {
      return error(res, 400, 'We could not parse the JSON body of your request.');
    }
    requests.push({ headers: req.headers, body });
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return error(res, 401, 'Incorrect API key provided.', 'invalid_request_error', null, 'invalid_api_key');
    }
    if (failures > 0) {
      failures--;
      return error(res, 500, 'The server had an error while processing your request.', 'server_error');
    }
    if (typeof body.prompt !== 'string' || body.prompt.length === 0)
      return error(res, 400, "Missing required parameter: 'prompt'.", 'invalid_request_error', 'prompt');
    if (typeof body.model !== 'string') return error(res, 400, "Missing required parameter: 'model'.", 'invalid_request_error', 'model');
    const size = String(body.size ?? '1024x1024');
    if (!SIZES.has(size)) return error(res, 400, `Invalid value for 'size': '${size}'.`, 'invalid_request_error', 'size');
    if (body.response_format !== undefined && body.response_format !== 'b64_json' && body.response_format !== 'url') {
      return error(res, 400, `Invalid value for 'response_format'.`, 'invalid_request_error', 'response_format');
    }
    if (body.prompt.includes('forbidden')) {
      return error(
        res,
        400,
        'Your request was rejected as a result of our safety system.',
        'invalid_request_error',
        null,
        'content_policy_violation',
      );
    }
    if (body.prompt.includes('slow')) await new Promise((r) => setTimeout(r, opts.slowMs ?? 1000));
    const [w, h] = size.split('x').map(Number) as [number, number];
    // Small image regardless of size: tests care about shapes of the exchange, not pixels.
    const png = await sharp({
      create: { width: Math.min(w, 32), height: Math.min(h, 32), channels: 3, background: { r: 10, g: 200, b: 30 } },
    })
      .png()
      .toBuffer();
    const item: Record<string, unknown> = { revised_prompt: `${body.prompt} (revised)` };
    if (body.response_format === 'url' || opts.forceUrl) {
      const id = `${randomUUID()}.png`;
      files.set(id, png);
      const { port } = server.address() as AddressInfo;
      item.url = `http://127.0.0.1:${port}/files/${id}`;
    } else {
      item.b64_json = png.toString('base64');
    }
    json(res, 200, { created: Math.floor(Date.now() / 1000), data: [item] });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
