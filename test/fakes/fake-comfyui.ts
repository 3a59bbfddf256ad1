/**
 * FAKE ComfyUI server for tests: the HTTP + WebSocket surface the connector uses, with ComfyUI's
 * documented message and response shapes, but no model. "Executing" a prompt emits execution_start,
 * executing, progress (plus one binary preview frame), executed and finally executing {node: null};
 * the image is a PNG made with sharp whose colour comes from the KSampler seed.
 * A positive prompt containing "explode" ends in execution_error instead; one containing
 * "interrupt" is interrupted on its first run.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { WebSocketServer, type WebSocket } from 'ws';

interface Node {
  class_type: string;
  inputs: Record<string, unknown>;
}

interface Task {
  number: number;
  promptId: string;
  prompt: Record<string, Node>;
  clientId: string | undefined;
}

export interface FakeComfyUiOptions {
  /** Sampler steps reported as progress. Default 4. */
  steps?: number;
  /** Delay per step. Default 10 ms. */
  stepDelayMs?: number;
  /** Do not send the closing `execution_success` and `executing {node: null}` messages (to exercise history polling). */
  dropDoneMessage?: boolean;
}

export interface FakeComfyUi {
  url: string;
  /** Every accepted POST /prompt body, in order. */
  posts: Array<{ prompt_id: string; client_id?: string; prompt: Record<string, Node> }>;
  /** Query of every GET /view. */
  views: URLSearchParams[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startFakeComfyUi(opts: FakeComfyUiOptions = {}): Promise<FakeComfyUi> {
  const steps = opts.steps ?? 4;
  const stepDelay = opts.stepDelayMs ?? 10;
  const sockets = new Map<string, Set<WebSocket>>();
  const history: Record<string, unknown> = {};
  const files = new Map<string, Buffer>();
  const pending: Task[] = [];
  let running: Task | undefined;
  let counter = 0;
  let closed = false;
  const interrupted = new Set<string>();
  const posts: FakeComfyUi['posts'] = [];
  const views: URLSearchParams[] = [];

  const send = (clientId: string | undefined, type: string, data: Record<string, unknown>) => {
    const msg = JSON.stringify({ type, data });
    for (const ws of clientId ? (sockets.get(clientId) ?? []) : []) ws.send(msg);
  };
  const sendBinary = (clientId: string | undefined, payload: Buffer) => {
    for (const ws of clientId ? (sockets.get(clientId) ?? []) : []) ws.send(payload, { binary: true });
  };

  const queueItem = (t: Task) => [t.number, t.promptId, t.prompt, { client_id: t.clientId }, []];

  async function execute(t: Task): Promise<void> {
    const nodes = Object.entries(t.prompt);
    const sampler = nodes.find(([, n]) => n.class_type === 'KSampler');
    const latent = nodes.find(([, n]) => n.class_type === 'EmptyLatentImage');
    const save = nodes.find(([, n]) => n.class_type === 'SaveImage');
    const positive = nodes.find(([, n]) => n.class_type === 'CLIPTextEncode');
    const seed = Number(sampler?.[1].inputs.seed ?? 0);
    const width = Number(latent?.[1].inputs.width ?? 64);
    const height = Number(latent?.[1].inputs.height ?? 64);
    const messages: Array<[string, Record<string, unknown>]> = [];
    const ts = () => Date.now();

    send(t.clientId, 'status', { status: { exec_info: { queue_remaining: pending.length + 1 } } });
    send(t.clientId, 'execution_start', { prompt_id: t.promptId, timestamp: ts() });
    messages.push(['execution_start', { prompt_id: t.promptId, timestamp: ts() }]);
    send(t.clientId, 'execution_cached', { nodes: [], prompt_id: t.promptId, timestamp: ts() });
    const samplerId = sampler?.[0] ?? '3';
    send(t.clientId, 'executing', { node: samplerId, display_node: samplerId, prompt_id: t.promptId });
    for (let i = 1; i <= steps; i++) {
      await sleep(stepDelay);
      if (closed) return;
      send(t.clientId, 'progress', { value: i, max: steps, prompt_id: t.promptId, node: samplerId });
      // Preview frame: 4-byte event type (1 = preview image), 4-byte format (2 = png), image bytes.
      if (i === 1) sendBinary(t.clientId, Buffer.concat([Buffer.from([0, 0, 0, 1, 0, 0, 0, 2]), Buffer.from('not-a-real-png')]));
    }
    const text = String(positive?.[1].inputs.text ?? '');
    if (text.includes('interrupt') && !interrupted.has(t.promptId)) {
      // First run of such a prompt is interrupted (as by POST /interrupt); later runs succeed.
      interrupted.add(t.promptId);
      const data = { prompt_id: t.promptId, node_id: samplerId, node_type: 'KSampler', executed: [] };
      messages.push(['execution_interrupted', data]);
      history[t.promptId] = { prompt: queueItem(t), outputs: {}, status: { status_str: 'error', completed: false, messages }, meta: {} };
      send(t.clientId, 'execution_interrupted', data);
      return;
    }
    if (text.includes('explode')) {
      const err = {
        prompt_id: t.promptId,
        node_id: samplerId,
        node_type: 'KSampler',
        executed: [],
        exception_message: 'CUDA out of memory (fake)',
        exception_type: 'torch.OutOfMemoryError',
        traceback: [],
        current_inputs: {},
        current_outputs: {},
      };
      messages.push(['execution_error', err]);
      history[t.promptId] = { prompt: queueItem(t), outputs: {}, status: { status_str: 'error', completed: false, messages }, meta: {} };
      send(t.clientId, 'execution_error', err);
      return;
    }
    const r = seed & 0xff,
      g = (seed >>> 8) & 0xff,
      b = (seed >>> 16) & 0xff;
    const png = await sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer();
    const filename = `${String(save?.[1].inputs.filename_prefix ?? 'ComfyUI')}_${String(++counter).padStart(5, '0')}_.png`;
    files.set(`output//${filename}`, png);
    const saveId = save?.[0] ?? '9';
    const output = { images: [{ filename, subfolder: '', type: 'output' }] };
    send(t.clientId, 'executing', { node: saveId, display_node: saveId, prompt_id: t.promptId });
    send(t.clientId, 'executed', { node: saveId, display_node: saveId, output, prompt_id: t.promptId });
    messages.push(['execution_success', { prompt_id: t.promptId, timestamp: ts() }]);
    history[t.promptId] = {
      prompt: queueItem(t),
      outputs: { [saveId]: output },
      status: { status_str: 'success', completed: true, messages },
      meta: { [saveId]: { node_id: saveId, display_node: saveId, parent_node: null, real_node_id: saveId } },
    };
    if (opts.dropDoneMessage) return;
    send(t.clientId, 'execution_success', { prompt_id: t.promptId, timestamp: ts() });
    send(t.clientId, 'executing', { node: null, prompt_id: t.promptId });
  }

  async function pump(): Promise<void> {
    if (running) return;
    while ((running = pending.shift())) {
      await execute(running).catch(() => undefined);
      running = undefined;
    }
  }

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const readBody = async (req: http.IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString();
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    try {
      if (req.method === 'POST' && url.pathname === '/prompt') {
        const body = JSON.parse(await readBody(req)) as { prompt?: unknown; client_id?: string; prompt_id?: string };
        const prompt = body.prompt as Record<string, Node> | undefined;
        const valid =
          prompt &&
          typeof prompt === 'object' &&
          Object.values(prompt).every((n) => n && typeof n.class_type === 'string' && typeof n.inputs === 'object');
        if (!valid) {
          return json(res, 400, {
            error: {
              type: 'invalid_prompt',
              message: 'Cannot execute because a node is missing the class_type property.',
              details: '',
              extra_info: {},
            },
            node_errors: [],
          });
        }
        const hasOutput = Object.values(prompt!).some((n) => n.class_type === 'SaveImage');
        if (!hasOutput) {
          return json(res, 400, {
            error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} },
            node_errors: [],
          });
        }
        const promptId = body.prompt_id ?? randomUUID();
        posts.push({ prompt_id: promptId, ...(body.client_id ? { client_id: body.client_id } : {}), prompt: prompt! });
        const task: Task = { number: counter++, promptId, prompt: prompt!, clientId: body.client_id };
        pending.push(task);
        void pump();
        return json(res, 200, { prompt_id: promptId, number: task.number, node_errors: {} });
      }
      if (req.method === 'GET' && url.pathname === '/queue') {
        return json(res, 200, { queue_running: running ? [queueItem(running)] : [], queue_pending: pending.map(queueItem) });
      }
      if (req.method === 'POST' && url.pathname === '/queue') {
        const body = JSON.parse(await readBody(req)) as { delete?: string[]; clear?: boolean };
        for (const id of body.delete ?? []) {
          const i = pending.findIndex((t) => t.promptId === id);
          if (i >= 0) pending.splice(i, 1);
        }
        res.writeHead(200).end();
        return;
      }
      if (req.method === 'POST' && url.pathname === '/interrupt') {
        res.writeHead(200).end();
        return;
      }
      if (req.method === 'GET' && url.pathname.startsWith('/history/')) {
        const id = decodeURIComponent(url.pathname.slice('/history/'.length));
        return json(res, 200, history[id] ? { [id]: history[id] } : {});
      }
      if (req.method === 'GET' && url.pathname === '/view') {
        views.push(url.searchParams);
        const key = `${url.searchParams.get('type') ?? 'output'}/${url.searchParams.get('subfolder') ?? ''}/${url.searchParams.get('filename') ?? ''}`;
        const file = files.get(key);
        if (!file) return json(res, 404, { error: 'not found' });
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': file.length });
        res.end(file);
        return;
      }
      json(res, 404, { error: 'not found' });
    } catch (e) {
      json(res, 500, { error: { message: e instanceof Error ? e.message : String(e) } });
    }
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/ws') return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      const sid = url.searchParams.get('clientId') ?? randomUUID();
      if (!sockets.has(sid)) sockets.set(sid, new Set());
      sockets.get(sid)!.add(ws);
      ws.on('close', () => sockets.get(sid)?.delete(ws));
      ws.send(JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: pending.length } }, sid } }));
    });
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    views,
    close: async () => {
      closed = true;
      pending.length = 0;
      for (const set of sockets.values()) for (const ws of set) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
