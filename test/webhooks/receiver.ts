/** A real HTTP receiver for webhook tests: records every request and answers from a script. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  origin: string;
  received: Received[];
  /** The status of the next answers, in order; then `fallback`. `'hang'` never answers. */
  script: Array<number | 'hang'>;
  fallback: number;
  /** Drops the connections of hanging answers. */
  dropHanging(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hanging: http.ServerResponse[] = [];
  const r: Receiver = {
    url: '',
    origin: '',
    received: [],
    script: [],
    fallback: 200,
    dropHanging: () => {
      for (const res of hanging.splice(0)) res.destroy();
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      r.received.push({ headers: req.headers, body, at: Date.now() });
      const next = r.script.length > 0 ? r.script.shift()! : r.fallback;
      if (next === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(next, { 'content-type': 'text/plain' }).end(next < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const port = (server.address() as AddressInfo).port;
  r.origin = `http://127.0.0.1:${port}`;
  r.url = `${r.origin}/hooks`;
  return r;
}
