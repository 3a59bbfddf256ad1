/**
 * ComfyUI connector, on ComfyUI's HTTP + WebSocket API:
 *   POST /prompt {prompt, client_id, prompt_id}  queue a workflow graph (API format)
 *   GET  /ws?clientId=…                           progress / executing / execution_error messages
 *   GET  /queue                                   running and pending prompts
 *   GET  /history/{prompt_id}                     outputs → images [{filename, subfolder, type}]
 *   GET  /view?filename=&subfolder=&type=         image bytes
 *
 * prompt_id is derived from (stepId, seed), so a retried step finds its earlier prompt (finished
 * in history, or still queued/running) instead of queueing the same work twice.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { withSpan } from '../../telemetry.ts';
import {
  GeneratorError,
  checkSize,
  sniffImageType,
  throwIfAborted,
  type GenerateRequest,
  type GenerateResult,
  type GeneratorConnector,
  type ProgressFn,
} from './types.ts';
import { DEFAULT_COMFY_WORKFLOW, deterministicPromptId, extractWorkflow, injectWorkflow, type ComfyWorkflow } from './comfyui-workflow.ts';

export interface ComfyUiConnectorOptions {
  baseUrl: string;
  /** Graph template (from the workflow record's data); default DEFAULT_COMFY_WORKFLOW. */
  workflow?: unknown;
  /** Identifies this process's websocket; default a random UUID per connector. */
  clientId?: string;
  /** Whole generation, queueing included. Default 10 minutes. */
  timeoutMs?: number;
  /** Each HTTP request. Default 30 s. */
  requestTimeoutMs?: number;
  /** History is polled too, in case a websocket message is lost. Default 2 s. */
  pollIntervalMs?: number;
}

interface HistoryImage {
  filename: string;
  subfolder?: string;
  type?: string;
}
interface HistoryEntry {
  /** [number, prompt_id, prompt, extra_data, outputs_to_execute] */
  prompt?: unknown[];
  outputs?: Record<string, { images?: HistoryImage[] }>;
  status?: { status_str?: string; completed?: boolean; messages?: Array<[string, Record<string, unknown>]> };
}

type WsMessage = { type: string; data?: Record<string, unknown> };

export class ComfyUiConnector implements GeneratorConnector {
  readonly kind = 'comfyui';
  private readonly baseUrl: string;
  private readonly template: ComfyWorkflow;
  private readonly clientId: string;
  private readonly timeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly pollIntervalMs: number;

  constructor(opts: ComfyUiConnectorOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    const template = opts.workflow === undefined ? DEFAULT_COMFY_WORKFLOW : extractWorkflow(opts.workflow);
    if (!template) {
      throw new GeneratorError('workflow data is not a ComfyUI API-format graph ({id: {class_type, inputs}})', { retryable: false });
    }
    this.template = template;
    this.clientId = opts.clientId ?? randomUUID();
    this.timeoutMs = opts.timeoutMs ?? 10 * 60_000;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.pollIntervalMs = opts.pollIntervalMs ?? 2000;
  }

  promptIdFor(req: GenerateRequest): string {
    return deterministicPromptId(
      req.stepId !== undefined
        ? `step:${req.stepId}:${req.seed >>> 0}`
        : `adhoc:${req.seed >>> 0}:${req.prompt}:${JSON.stringify(req.values)}`,
    );
  }

  /** One generation inside a comfyui.execute span (docs/api/content.md §6.3; docs/telemetry.md). */
  async generate(req: GenerateRequest, onProgress: ProgressFn, signal?: AbortSignal): Promise<GenerateResult> {
    const promptId = this.promptIdFor(req);
    const attributes = { 'comfyui.prompt_id': promptId, 'comfyui.instance': this.baseUrl, 'comfyui.host': new URL(this.baseUrl).host };
    return withSpan('comfyui.execute', attributes, () => this.execute(req, promptId, onProgress, signal));
  }

  private async execute(req: GenerateRequest, promptId: string, onProgress: ProgressFn, signal?: AbortSignal): Promise<GenerateResult> {
    const { width, height } = checkSize(req);
    throwIfAborted(signal);
    const graph = injectWorkflow(this.template, { prompt: req.prompt, seed: req.seed >>> 0, width, height, values: req.values });

    let pct = 0;
    const report = (p: number, message?: string) => {
      if (p < pct) return; // several nodes report progress; never move the bar backwards
      pct = p;
      onProgress(Math.round(p), message);
    };

    const deadline = AbortSignal.timeout(this.timeoutMs);
    const overall = signal ? AbortSignal.any([signal, deadline]) : deadline;
    // Listen before queueing, so no message about our prompt can be missed.
    const ws = await this.openSocket(overall).catch(() => undefined);
    try {
      report(0, 'submitting');
      let entry = await this.getHistory(promptId, overall);
      // An interrupted run left no result: run it again under the same prompt_id.
      if (entry && wasInterrupted(entry)) entry = undefined;
      if (!entry) {
        let run = await this.queuedNumber(promptId, overall);
        if (run !== undefined) report(5, 'already queued (retry)');
        else {
          run = await this.postPrompt(graph, promptId, overall);
          report(5, 'queued');
        }
        entry = await this.waitForCompletion(promptId, run, ws, report, overall);
      } else {
        report(90, 'already finished (retry)');
      }
      this.throwIfFailed(entry);
      const image = this.firstImage(entry);
      const bytes = await this.fetchView(image, overall);
      report(100, 'done');
      return {
        bytes,
        mimeType: sniffImageType(bytes, 'image/png'),
        meta: {
          generator: 'comfyui',
          prompt_id: promptId,
          filename: image.filename,
          subfolder: image.subfolder ?? '',
          type: image.type ?? 'output',
        },
      };
    } catch (e) {
      if (signal?.aborted) {
        await this.cancel(promptId);
        throw new GeneratorError('generation aborted', { retryable: true, cause: signal.reason });
      }
      if (deadline.aborted) {
        throw new GeneratorError(`ComfyUI did not finish prompt ${promptId} within ${this.timeoutMs} ms`, { retryable: true, cause: e });
      }
      if (e instanceof GeneratorError) throw e;
      throw new GeneratorError(`ComfyUI request failed: ${e instanceof Error ? e.message : String(e)}`, { retryable: true, cause: e });
    } finally {
      ws?.close();
    }
  }

  // ---- HTTP ------------------------------------------------------------------------------

  private async request(path: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      ...init,
      signal: AbortSignal.any([signal, AbortSignal.timeout(this.requestTimeoutMs)]),
    });
    if (res.ok) return res;
    const text = await res.text().catch(() => '');
    let message = text.slice(0, 500);
    try {
      const body = JSON.parse(text) as {
        error?: { message?: string; details?: string } | string;
        node_errors?: Record<string, { errors?: Array<{ message?: string; details?: string }>; class_type?: string }>;
      };
      const err = typeof body.error === 'string' ? body.error : [body.error?.message, body.error?.details].filter(Boolean).join(': ');
      const nodes = Object.entries(body.node_errors ?? {}).map(
        ([id, n]) =>
          `node ${id} (${n.class_type ?? '?'}): ${(n.errors ?? []).map((x) => [x.message, x.details].filter(Boolean).join(': ')).join('; ')}`,
      );
      message = [err, ...nodes].filter(Boolean).join('; ') || message;
    } catch {
      // not JSON: keep the text
    }
    throw new GeneratorError(`ComfyUI ${init.method ?? 'GET'} ${path.split('?')[0]} returned ${res.status}: ${message}`, {
      retryable: res.status >= 500 || res.status === 429,
      status: res.status,
    });
  }

  /** Queues the graph; returns ComfyUI's queue number for it (undefined if not reported). */
  private async postPrompt(graph: ComfyWorkflow, promptId: string, signal: AbortSignal): Promise<number | undefined> {
    const res = await this.request(
      '/prompt',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: graph, client_id: this.clientId, prompt_id: promptId }),
      },
      signal,
    );
    const body = (await res.json().catch(() => ({}))) as { number?: unknown };
    return typeof body.number === 'number' ? body.number : undefined;
  }

  private async getHistory(promptId: string, signal: AbortSignal): Promise<HistoryEntry | undefined> {
    const res = await this.request(`/history/${encodeURIComponent(promptId)}`, {}, signal);
    const body = (await res.json()) as Record<string, HistoryEntry>;
    return body[promptId];
  }

  /** The queue number of our prompt when it is running or pending, else undefined. */
  private async queuedNumber(promptId: string, signal: AbortSignal): Promise<number | undefined> {
    const res = await this.request('/queue', {}, signal);
    const body = (await res.json()) as { queue_running?: unknown[][]; queue_pending?: unknown[][] };
    // Queue items are [number, prompt_id, prompt, extra_data, outputs_to_execute].
    const item = [...(body.queue_running ?? []), ...(body.queue_pending ?? [])].find((i) => Array.isArray(i) && i[1] === promptId);
    return item ? (typeof item[0] === 'number' ? item[0] : -1) : undefined;
  }

  private async fetchView(image: HistoryImage, signal: AbortSignal): Promise<Buffer> {
    const q = new URLSearchParams({ filename: image.filename, subfolder: image.subfolder ?? '', type: image.type ?? 'output' });
    const res = await this.request(`/view?${q}`, {}, signal);
    return Buffer.from(await res.arrayBuffer());
  }

  /** Best effort: drop the prompt from the pending queue, or interrupt it if it is running. */
  private async cancel(promptId: string): Promise<void> {
    const quick = AbortSignal.timeout(5000);
    const post = (path: string, body: unknown) =>
      fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: quick,
      }).catch(() => undefined);
    await post('/queue', { delete: [promptId] });
    await post('/interrupt', { prompt_id: promptId });
  }

  private throwIfFailed(entry: HistoryEntry): void {
    if (entry.status?.status_str !== 'error') return;
    const err = entry.status.messages?.find(([type]) => type === 'execution_error')?.[1];
    throw new GeneratorError(`ComfyUI execution failed${err ? `: ${describeExecutionError(err)}` : ''}`, { retryable: false });
  }

  private firstImage(entry: HistoryEntry): HistoryImage {
    const images = Object.keys(entry.outputs ?? {})
      .sort((a, b) => Number(a) - Number(b) || (a < b ? -1 : 1))
      .flatMap((id) => entry.outputs![id]!.images ?? []);
    // Prefer saved outputs over previews and temp files.
    const image = images.find((i) => (i.type ?? 'output') === 'output') ?? images[0];
    if (!image) throw new GeneratorError('ComfyUI finished but the workflow produced no image', { retryable: false });
    return image;
  }

  // ---- WebSocket -------------------------------------------------------------------------

  private openSocket(signal: AbortSignal): Promise<WebSocket> {
    const url = `${this.baseUrl.replace(/^http/, 'ws')}/ws?clientId=${encodeURIComponent(this.clientId)}`;
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { handshakeTimeout: this.requestTimeoutMs });
      const onAbort = () => ws.terminate();
      signal.addEventListener('abort', onAbort, { once: true });
      ws.once('open', () => {
        signal.removeEventListener('abort', onAbort);
        resolve(ws);
      });
      ws.once('error', (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      });
      ws.on('error', () => {}); // later errors: polling carries on
    });
  }

  /**
   * Resolves with the history entry once ComfyUI is done with the prompt: told by the websocket
   * (`executing` with node null, or `execution_success`) or seen by polling history.
   */
  private waitForCompletion(
    promptId: string,
    run: number | undefined,
    ws: WebSocket | undefined,
    report: (p: number, m?: string) => void,
    overall: AbortSignal,
  ): Promise<HistoryEntry> {
    return new Promise<HistoryEntry>((resolve, reject) => {
      let settled = false;
      let checking = false;
      const finish = (err: unknown, entry?: HistoryEntry) => {
        if (settled) return;
        settled = true;
        clearInterval(timer);
        overall.removeEventListener('abort', onAbort);
        ws?.off('message', onMessage);
        if (err) reject(err);
        else resolve(entry!);
      };
      const check = async () => {
        if (settled || checking) return;
        checking = true;
        try {
          let entry = await this.getHistory(promptId, overall);
          // An entry from an earlier run of this prompt_id (re-run after an interruption) is stale.
          if (entry && run !== undefined && run >= 0 && Array.isArray(entry.prompt) && entry.prompt[0] !== run) entry = undefined;
          if (entry && wasInterrupted(entry)) finish(new GeneratorError('ComfyUI execution was interrupted', { retryable: true }));
          else if (
            entry &&
            (entry.status?.completed || entry.status?.status_str === 'error' || Object.keys(entry.outputs ?? {}).length > 0)
          ) {
            finish(undefined, entry);
          }
        } catch (e) {
          if (!(e instanceof GeneratorError && e.retryable)) finish(e);
        } finally {
          checking = false;
        }
      };
      const onAbort = () => finish(overall.reason ?? new Error('aborted'));
      const onMessage = (raw: WebSocket.RawData, isBinary: boolean) => {
        if (isBinary) return; // preview images
        let msg: WsMessage;
        try {
          msg = JSON.parse(raw.toString()) as WsMessage;
        } catch {
          return;
        }
        const d = msg.data ?? {};
        if (d.prompt_id !== promptId) return;
        switch (msg.type) {
          case 'execution_start':
            report(10, 'started');
            break;
          case 'progress': {
            const value = Number(d.value),
              max = Number(d.max);
            if (max > 0 && Number.isFinite(value))
              report(10 + (80 * Math.min(value, max)) / max, `node ${String(d.node ?? '')} ${value}/${max}`);
            break;
          }
          case 'executing':
            if (d.node === null) void check();
            break;
          case 'execution_success':
            void check();
            break;
          case 'execution_error':
            finish(new GeneratorError(`ComfyUI execution failed: ${describeExecutionError(d)}`, { retryable: false }));
            break;
          case 'execution_interrupted':
            finish(new GeneratorError('ComfyUI execution was interrupted', { retryable: true }));
            break;
        }
      };
      ws?.on('message', onMessage);
      overall.addEventListener('abort', onAbort, { once: true });
      const timer = setInterval(() => void check(), this.pollIntervalMs);
      void check(); // it may have finished before we listened (e.g. a retry of a fast prompt)
    });
  }
}

function wasInterrupted(entry: HistoryEntry): boolean {
  const types = (entry.status?.messages ?? []).map(([type]) => type);
  return entry.status?.status_str === 'error' && types.includes('execution_interrupted') && !types.includes('execution_error');
}

function describeExecutionError(d: Record<string, unknown>): string {
  const where = d.node_id !== undefined ? `node ${String(d.node_id)}${d.node_type ? ` (${String(d.node_type)})` : ''}: ` : '';
  return `${where}${String(d.exception_message ?? d.exception_type ?? 'unknown error').trim()}`;
}
