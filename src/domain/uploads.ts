/**
 * Upload rules (docs/api/content.md §4.6, §8; docs/content.md): base64 decoding, the 10 MB limit
 * on decoded bytes, and the storage path segment of an owner id. Pure.
 */
import { createHash } from 'node:crypto';
import { invalid } from './errors.ts';

/** 10 MB = 10 × 1024 × 1024 decoded bytes. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** `data:<type>;base64,<data>` or bare base64 (standard or URL-safe, line breaks allowed). */
export function decodeBase64(input: string): { bytes: Buffer; declaredType?: string } {
  let data = input;
  let declaredType: string | undefined;
  const dataUrl = /^data:([^;,]*)((?:;[^;,]*)*),/i.exec(input);
  if (dataUrl) {
    if (!/;base64/i.test(dataUrl[2] ?? '')) throw invalid('body.base64Data: a data URL must be ;base64 encoded');
    declaredType = dataUrl[1]?.trim().toLowerCase() || undefined;
    data = input.slice(dataUrl[0].length);
  }
  data = data.replace(/\s+/g, '');
  if (data.length === 0) throw invalid('body.base64Data: empty');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(data) || data.length % 4 === 1) {
    throw invalid('body.base64Data: not valid base64');
  }
  return { bytes: Buffer.from(data, 'base64'), declaredType };
}

/** Decoded size of base64 text, without decoding it (to refuse oversized uploads early). */
export function decodedLength(input: string): number {
  const comma = input.startsWith('data:') ? input.indexOf(',') + 1 : 0;
  let n = 0;
  let pad = 0;
  for (let i = comma; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c === 61 /* = */) pad++;
    else if (c > 32) n++;
  }
  return Math.floor(((n + pad) * 3) / 4) - pad;
}

/** A user id as one path segment: kept when plain, else a stable hash (never a separator or `..`). */
export function pathSegment(id: string): string {
  if (/^[A-Za-z0-9_][A-Za-z0-9._:-]{0,127}$/.test(id) && !id.includes('..')) return id;
  return `h_${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;
}

/** 413: the HTTP layer answers a 4xx `statusCode` as it is. */
export class PayloadTooLarge extends Error {
  readonly statusCode = 413;
}

/** 413 above 10 MB of decoded bytes. */
export function assertUploadSize(size: number) {
  if (size > MAX_UPLOAD_BYTES) {
    throw new PayloadTooLarge(`file is ${size} bytes; the limit is ${MAX_UPLOAD_BYTES} bytes (10 MB)`);
  }
}
