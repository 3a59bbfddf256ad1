/**
 * OpenAI-compatible image API connector: POST {baseUrl}/v1/images/generations. Works with OpenAI
 * and with servers that copy its shape. Results arrive as b64_json or as a URL to download.
 * These APIs take no seed (OpenAI ignores reproducibility), so the seed is only sent when asked.
 */
import { guardedFetch, OutsideFetchError } from '../../net/guarded-fetch.ts';
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

/** A generated image larger than this is not downloaded. */
const MAX_IMAGE_BYTES = 50 * 1024 * 1024;
/** The download's own limit; the job's `all` signal (overall timeout, abort) applies as well. */
const IMAGE_DOWNLOAD_TIMEOUT_MS = 120_000;

export interface OpenAiImagesConnectorOptions {
  /** e.g. https://api.openai.com — a trailing /v1 is accepted too. */
  baseUrl: string;
  apiKey?: string;
  /** Default `dall-e-3`. */
  model?: string;
  /** Whole request including download of a URL result. Default 120 s. */
  timeoutMs?: number;
  /**
   * Default: send `b64_json`, except for gpt-image-* models, which always answer b64_json and
   * reject the parameter. `null` never sends it.
   */
  responseFormat?: 'b64_json' | 'url' | null;
  /** Also send `seed` (some compatible servers honour it; OpenAI rejects unknown fields). */
  sendSeed?: boolean;
  /** Prompts longer than this are cut (OpenAI limits are 1,000–32,000 by model). Default 4,000. */
  maxPromptLength?: number;
}

interface ImagesResponse {
  data?: Array<{ b64_json?: string; url?: string; revised_prompt?: string }>;
  error?: { message?: string; type?: string; code?: string } | string;
}

export class OpenAiImagesConnector implements GeneratorConnector {
  readonly kind = 'openai';
  private readonly endpoint: string;
  private readonly opts: OpenAiImagesConnectorOptions & { model: string; timeoutMs: number; maxPromptLength: number };

  constructor(opts: OpenAiImagesConnectorOptions) {
    const base = opts.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.endpoint = `${base}/v1/images/generations`;
    this.opts = { model: 'dall-e-3', timeoutMs: 120_000, maxPromptLength: 4000, ...opts };
  }

  async generate(req: GenerateRequest, onProgress: ProgressFn, signal?: AbortSignal): Promise<GenerateResult> {
    const { width, height } = checkSize(req);
    throwIfAborted(signal);
    const prompt = req.prompt.trim();
    if (!prompt) throw new GeneratorError('prompt is empty', { retryable: false });
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const all = signal ? AbortSignal.any([signal, timeout]) : timeout;

    const format =
      this.opts.responseFormat === undefined ? (/^gpt-image/i.test(this.opts.model) ? null : 'b64_json') : this.opts.responseFormat;
    const body: Record<string, unknown> = {
      model: this.opts.model,
      prompt: prompt.slice(0, this.opts.maxPromptLength),
      n: 1,
      size: `${width}x${height}`,
      ...(format ? { response_format: format } : {}),
      ...(this.opts.sendSeed ? { seed: req.seed >>> 0 } : {}),
    };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;

    onProgress(0, 'submitting');
    try {
      const res = await fetch(this.endpoint, { method: 'POST', headers, body: JSON.stringify(body), signal: all });
      onProgress(50, 'generated');
      const text = await res.text();
      let parsed: ImagesResponse | undefined;
      try {
        parsed = JSON.parse(text) as ImagesResponse;
      } catch {
        parsed = undefined;
      }
      if (!res.ok) {
        const msg = typeof parsed?.error === 'string' ? parsed.error : parsed?.error?.message;
        throw new GeneratorError(`image API returned ${res.status}: ${msg ?? (text.slice(0, 300) || res.statusText)}`, {
          retryable: res.status >= 500 || res.status === 429 || res.status === 408,
          status: res.status,
        });
      }
      const item = parsed?.data?.[0];
      let bytes: Buffer;
      if (item?.b64_json) {
        bytes = Buffer.from(item.b64_json, 'base64');
      } else if (item?.url) {
        onProgress(70, 'downloading');
        // The API names the URL: the guarded fetcher keeps it out of our network, except the
        // API's own origin (a local OpenAI-compatible server that serves its images itself).
        const img = await guardedFetch(String(item.url), {
          signal: all,
          timeoutMs: IMAGE_DOWNLOAD_TIMEOUT_MS,
          maxBytes: MAX_IMAGE_BYTES,
          allowOrigins: [new URL(this.endpoint).origin],
        }).catch((err: unknown) => {
          throw new GeneratorError(`downloading the generated image failed: ${(err as Error).message}`, {
            retryable: err instanceof OutsideFetchError && ['TIMEOUT', 'NETWORK'].includes(err.code),
          });
        });
        if (img.status < 200 || img.status >= 300)
          throw new GeneratorError(`downloading the generated image returned ${img.status}`, {
            retryable: img.status >= 500,
            status: img.status,
          });
        bytes = img.body;
      } else {
        throw new GeneratorError('image API response has neither data[0].b64_json nor data[0].url', { retryable: false });
      }
      const mimeType = sniffImageType(bytes);
      if (!mimeType.startsWith('image/')) throw new GeneratorError('image API returned bytes that are not an image', { retryable: false });
      onProgress(100, 'done');
      return {
        bytes,
        mimeType,
        meta: {
          generator: 'openai',
          model: this.opts.model,
          size: body.size,
          ...(item.revised_prompt ? { revised_prompt: item.revised_prompt } : {}),
        },
      };
    } catch (e) {
      throwIfAborted(signal);
      if (timeout.aborted)
        throw new GeneratorError(`image API did not answer within ${this.opts.timeoutMs} ms`, { retryable: true, cause: e });
      if (e instanceof GeneratorError) throw e;
      throw new GeneratorError(`image API request failed: ${e instanceof Error ? e.message : String(e)}`, { retryable: true, cause: e });
    }
  }
}
