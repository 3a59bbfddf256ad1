/**
 * POST /api/nft/upload-image (nft-service.md §4.1): forwarded to the backend's /upload-base64
 * with create_flat_file true. Images only; the answer's `path` is what variable values store.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { assertUploadSize, decodedLength } from '../../domain/uploads.ts';
import { relType, uploadFilename, type UploadResult } from '../schemas/uploads.ts';
import { uuid } from '../schemas/common.ts';
import type { AdminDeps } from './app.ts';

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

const body = z.object({
  base64Data: z.string().min(1, 'required'),
  mimeType: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(IMAGE_TYPES, { message: `expected one of ${IMAGE_TYPES.join(', ')}` }))
    .optional(),
  filename: uploadFilename.optional(),
  /** Owner of the file; default the user_id the caller sends. */
  userId: uuid.optional(),
  rel_type: relType.default('nft_ref_image'),
});

export function adminUploadRoutes(app: FastifyInstance, deps: AdminDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post('/api/nft/upload-image', { schema: { body, tags: ['uploads'] } }, async (req) => {
    const { userId, ...rest } = req.body;
    // Checked here too, so the 413 is not lost in forwarding.
    assertUploadSize(decodedLength(rest.base64Data));
    const data = await deps.backend.call<UploadResult>('POST', 'upload-base64', {
      body: { ...rest, create_flat_file: true },
      userId: userId ?? req.auth.userId,
    });
    return { success: true, ...data };
  });
}
