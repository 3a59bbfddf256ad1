/**
 * POST /upload-base64 (content-service.md §4.6, §8) and GET /files/<key>, which serves stored
 * files (local storage, or S3 objects when no S3_PUBLIC_URL is configured).
 *
 * The 10 MB limit counts decoded bytes. The type is what the bytes are (magic numbers); the
 * declared mimeType must be allowed and must agree. The storage path is built only from the
 * identifier kind, the identifier and a fresh uuid: a client's filename never becomes part of it.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createFlatFile } from '../../db/flat-files.ts';
import { invalid, notFound } from '../../domain/errors.ts';
import { FILES_ROUTE } from '../../storage/index.ts';
import { ALLOWED_UPLOAD_TYPES, EXTENSION, sniffType } from '../../storage/mime.ts';
import { keyProblem, type Storage } from '../../storage/types.ts';
import { requireUser } from '../plugins/auth.ts';
import { ok, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

/** 10 MB = 10 × 1024 × 1024 decoded bytes. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const allowedList = ALLOWED_UPLOAD_TYPES.join(', ');

export const uploadMimeType = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(ALLOWED_UPLOAD_TYPES, { message: `expected one of ${allowedList}` }));

/** A display name only: no separators, no dot-only names, no control characters. */
export const uploadFilename = z
  .string()
  .max(255)
  .refine((v) => !/[/\\]/.test(v), 'must not contain / or \\')
  .refine((v) => !/^\.+$/.test(v.trim()) && !v.includes('..'), 'must not contain ..')
  // eslint-disable-next-line no-control-regex
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must not contain control characters');

export const relType = z.string().regex(/^[a-z0-9_]{1,50}$/, 'expected 1-50 of a-z, 0-9, _');

const uploadBody = z.object({
  base64Data: z.string().min(1, 'required'),
  filename: uploadFilename.optional(),
  mimeType: uploadMimeType.optional(),
  create_flat_file: z.boolean().default(false),
  rel_type: relType.default('upload'),
  miniapp_user_id: uuid.optional(),
  fid: z
    .union([z.string().regex(/^\d{1,20}$/, 'expected a numeric fid'), z.number().int().nonnegative()])
    .transform(String)
    .optional(),
});

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

export class PayloadTooLarge extends Error {
  readonly statusCode = 413;
}

/** 413 above 10 MB of decoded bytes. */
export function assertUploadSize(size: number) {
  if (size > MAX_UPLOAD_BYTES) {
    throw new PayloadTooLarge(`file is ${size} bytes; the limit is ${MAX_UPLOAD_BYTES} bytes (10 MB)`);
  }
}

export interface UploadResult {
  url: string;
  path: string;
  public_url: string;
  size: number;
  mimeType: string;
  filename: string;
  flatFileId?: number;
}

export function uploadRoutes(app: FastifyInstance, deps: BackendDeps & { storage: Storage }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;
  const storage = deps.storage;

  r.post('/upload-base64', { schema: { body: uploadBody, tags: ['uploads'] } }, async (req) => {
    const body = req.body;
    // Who owns the file: miniapp_user_id, else fid, else the authenticated user_id (§4.6).
    let pathType: 'miniapp-userid' | 'fid' | 'user-id';
    let owner: string;
    if (body.miniapp_user_id) {
      pathType = 'miniapp-userid';
      owner = body.miniapp_user_id;
    } else if (body.fid) {
      pathType = 'fid';
      owner = body.fid;
    } else {
      pathType = 'user-id';
      owner = requireUser(req);
    }

    assertUploadSize(decodedLength(body.base64Data));
    const { bytes, declaredType } = decodeBase64(body.base64Data);
    assertUploadSize(bytes.length);
    let declared: string = body.mimeType ?? 'image/png';
    if (!body.mimeType && declaredType) {
      const parsed = uploadMimeType.safeParse(declaredType);
      if (!parsed.success) throw invalid(`body.base64Data: data URL type ${declaredType} is not one of ${allowedList}`);
      declared = parsed.data;
    }
    const actual = sniffType(bytes);
    if (!actual) throw invalid(`body.base64Data: the content is not one of ${allowedList} (checked by its bytes)`);
    if (actual !== declared) {
      throw invalid(`body.mimeType: declared ${declared}, but the content is ${actual}`);
    }

    const key = `user-uploads/${pathType}/${pathSegment(owner)}/${randomUUID()}.${EXTENSION[actual]}`;
    const stored = await storage.put(key, bytes, actual);
    const result: UploadResult = {
      url: key,
      path: key,
      public_url: stored.url,
      size: bytes.length,
      mimeType: actual,
      filename: body.filename ?? randomUUID(),
    };
    if (body.create_flat_file) {
      const row = await createFlatFile(db, { url: key, mime_type: actual, size: bytes.length, user_id: owner, rel_type: body.rel_type });
      result.flatFileId = row.id;
    }
    return ok(result);
  });

  r.get(`${FILES_ROUTE}/*`, { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const key = (req.params as { '*': string })['*'];
    const problem = keyProblem(key);
    if (problem) throw invalid(`path: ${problem}`);
    const object = await storage.get(key);
    if (!object) throw notFound(`file ${key}`);
    return reply
      .header('content-type', object.contentType)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(object.bytes);
  });
}
