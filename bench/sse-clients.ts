/**
 * The SSE clients of `npm run bench:sse`, in a child process of their own: a thousand streams
 * parsed in the server's process would share its event loop (delaying the very deliveries being
 * measured) and count as its CPU. The parent asks for streams, then for the delays recorded.
 *
 * Protocol (IPC): {open: {url, headers, jobIds, perJob}} → {opened: n} once each stream has its
 * history_init; {reset} → {reset}; {collect} → {delays: number[]} (ms from each job_history
 * entry's created_at to its arrival); {drain} → {drained} once every stream has ended.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const ROLE = 'ATELIER_BENCH_SSE_CLIENTS';

type Reply = { opened: number } | { reset: true } | { delays: number[] } | { drained: true };

export interface SseClients {
  open(o: { url: string; headers: Record<string, string>; jobIds: string[]; perJob: number }): Promise<number>;
  reset(): Promise<void>;
  collect(): Promise<number[]>;
  drain(): Promise<void>;
  close(): Promise<void>;
}

export async function startSseClients(): Promise<SseClients> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, [ROLE]: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
  });
  const ask = <T extends Reply>(msg: object) =>
    new Promise<T>((resolve) => {
      child.once('message', (m) => resolve(m as T));
      child.send(msg);
    });
  return {
    open: async (o) => (await ask<{ opened: number }>({ open: o })).opened,
    reset: async () => void (await ask({ reset: true })),
    collect: async () => (await ask<{ delays: number[] }>({ collect: true })).delays,
    drain: async () => void (await ask({ drain: true })),
    async close() {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill();
      await gone;
    },
  };
}

async function serve(): Promise<void> {
  let delays: number[] = [];
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const running = new Set<Promise<void>>();

  /** Reads one stream to its end (node:http, lighter than fetch's web streams); calls `opened` at its history_init. */
  function stream(url: string, headers: Record<string, string>, opened: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = http.get(url, { headers, agent }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`stream ${url}: ${res.statusCode}`));
        }
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => {
          const now = Date.now();
          text += chunk;
          let cut = text.indexOf('\n\n');
          while (cut >= 0) {
            const block = text.slice(0, cut);
            text = text.slice(cut + 2);
            if (block.includes('event: history_init')) opened();
            else if (block.includes('event: job_history')) {
              const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as { created_at: string };
              delays.push(now - Date.parse(data.created_at));
            }
            cut = text.indexOf('\n\n');
          }
        });
        res.on('end', () => resolve());
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  }

  process.on(
    'message',
    async (m: { open?: { url: string; headers: Record<string, string>; jobIds: string[]; perJob: number } } & Record<string, unknown>) => {
      if (m.open) {
        const { url, headers, jobIds, perJob } = m.open;
        let opened = 0;
        const all = jobIds.length * perJob;
        await new Promise<void>((resolve) => {
          for (const jobId of jobIds) {
            for (let i = 0; i < perJob; i++) {
              const p = stream(url.replace(':id', jobId), headers, () => {
                opened += 1;
                if (opened === all) resolve();
              }).catch((err: unknown) => console.error('sse client:', err));
              running.add(p);
              void p.finally(() => running.delete(p));
            }
          }
        });
        process.send!({ opened });
      } else if (m.reset) {
        delays = [];
        process.send!({ reset: true });
      } else if (m.collect) {
        process.send!({ delays });
      } else if (m.drain) {
        await Promise.all(running);
        process.send!({ drained: true });
      }
    },
  );
  process.send!('ready');
}

if (process.env[ROLE] === '1') await serve();
