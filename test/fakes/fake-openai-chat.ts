/**
 * A fake OpenAI-compatible chat completions server (POST /v1/chat/completions), answering in the
 * documented shape: {choices: [{message: {role, content}}]}, or {error: {message}} with a 4xx/5xx.
 * `answer` decides the content per request; every request is recorded for assertions.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeChat {
  url: string;
  requests: Array<{ headers: http.IncomingHttpHeaders; body: any }>;
  close(): Promise<void>;
}

export async function startFakeOpenAiChat(answer: (body: any) => { status?: number; content?: string; error?: string }): Promise<FakeChat> {
  const requests: FakeChat['requests'] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    requests.push({ headers: req.headers, body });
    const a = answer(body);
    if (a.error) {
      res.writeHead(a.status ?? 500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: a.error } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: a.content ?? '' } }],
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
