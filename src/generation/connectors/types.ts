/**
 * One interface for every image generator (procedural, ComfyUI, OpenAI-compatible). A worker
 * resolves a step (src/domain/variables.ts), fetches reference image bytes, and calls generate().
 */

export interface ReferenceImageInput {
  /** Variable name, e.g. `ref_image_1` or `social_pfp`. */
  name: string;
  bytes?: Buffer;
  url?: string;
}

export interface GenerateRequest {
  /** The step intent with variables substituted. */
  prompt: string;
  /** Unsigned 32-bit seed. */
  seed: number;
  width?: number;
  height?: number;
  /** Resolved variable values (the procedural renderer draws them; others may use them in templates). */
  values: Record<string, string>;
  /** Non-blank reference images only. */
  referenceImages: ReferenceImageInput[];
  /** Stable id of the queued step; connectors use it for idempotency (e.g. ComfyUI prompt_id). */
  stepId?: string;
}

export interface GenerateResult {
  bytes: Buffer;
  mimeType: string;
  meta?: Record<string, unknown>;
}

export type ProgressFn = (pct: number, message?: string) => void;

export interface GeneratorConnector {
  readonly kind: string;
  generate(req: GenerateRequest, onProgress: ProgressFn, signal?: AbortSignal): Promise<GenerateResult>;
}

/**
 * A generator failure. `retryable` tells the runner whether another attempt may succeed
 * (timeouts, 5xx, 429, connection errors) or not (4xx, invalid workflow, execution error).
 */
export class GeneratorError extends Error {
  readonly retryable: boolean;
  readonly status?: number;
  constructor(message: string, opts: { retryable: boolean; status?: number; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'GeneratorError';
    this.retryable = opts.retryable;
    if (opts.status !== undefined) this.status = opts.status;
  }
}

export const DEFAULT_SIZE = 1024;
export const MAX_SIZE = 2048;

export function checkSize(req: GenerateRequest): { width: number; height: number } {
  const width = req.width ?? DEFAULT_SIZE;
  const height = req.height ?? DEFAULT_SIZE;
  for (const [k, v] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(v) || v < 16 || v > MAX_SIZE) {
      throw new GeneratorError(`${k} must be an integer from 16 to ${MAX_SIZE}`, { retryable: false });
    }
  }
  return { width, height };
}

/** Image MIME type from magic bytes; generators do not always say what they return. */
export function sniffImageType(b: Buffer, fallback = 'application/octet-stream'): string {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 12 && b.toString('ascii', 0, 4) === 'RIFF' && b.toString('ascii', 8, 12) === 'WEBP') return 'image/webp';
  if (b.length >= 6 && b.toString('ascii', 0, 4) === 'GIF8') return 'image/gif';
  return fallback;
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new GeneratorError('generation aborted', { retryable: true, cause: signal.reason });
  }
}
