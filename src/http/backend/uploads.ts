/**
 * POST /upload-base64 (docs/api/content.md §4.6, §8) and GET /files/<key>, which serves stored
 * files (local storage, or S3 objects when no S3_PUBLIC_URL is configured). Both need storage:
 * without it they answer 503.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { UploadService } from '../../services/uploads.ts';
import { FILES_ROUTE } from '../../storage/index.ts';
import { requires } from '../plugins/availability.ts';
import { ok } from '../schemas/common.ts';
import { fileParams, uploadBody, uploadResponse } from '../schemas/uploads.ts';

export interface UploadRoutesOptions {
  /** Absent without storage. */
  uploads?: UploadService;
}

export const uploadRoutes: FastifyPluginAsync<UploadRoutesOptions> = async (app, opts) => {
  requires(app, () => opts.uploads !== undefined, 'file storage is not configured');
  // Present whenever a handler runs: `requires` answered 503 otherwise.
  const uploads = () => opts.uploads as UploadService;
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/upload-base64',
    {
      schema: {
        tags: ['uploads'],
        operationId: 'uploadBase64',
        summary: 'Upload a file (base64)',
        description:
          "Stores a png, jpeg, webp, gif, mp4 or webm file of at most 10 MB (413 above) under user-uploads/{miniapp-userid|fid|user-id}/{id}/{uuid}.{ext}; the type is checked by the bytes. Uploading for a miniapp_user_id or fid that is not the caller's is for the service key. Optionally records a flat file.",
        body: uploadBody,
        response: { 200: uploadResponse },
      },
    },
    async (req) => {
      const b = req.body;
      const result = await uploads().upload(req.caller, {
        base64Data: b.base64Data,
        ...(b.filename !== undefined ? { filename: b.filename } : {}),
        ...(b.mimeType !== undefined ? { mimeType: b.mimeType } : {}),
        createFlatFile: b.create_flat_file,
        relType: b.rel_type,
        ...(b.miniapp_user_id ? { miniappUserId: b.miniapp_user_id } : {}),
        ...(b.fid ? { fid: b.fid } : {}),
      });
      return ok(result);
    },
  );

  r.get(
    `${FILES_ROUTE}/*`,
    {
      config: { public: true },
      schema: {
        tags: ['uploads'],
        operationId: 'getFile',
        summary: 'A stored file',
        description:
          'The file at a storage key, with its content type, nosniff, a sandboxing CSP and an immutable cache lifetime (keys are never rewritten with other content). Public.',
        params: fileParams,
        response: {
          200: {
            description: 'the file',
            content: { 'application/octet-stream': { schema: z.any().describe('the bytes, with their own content type') } },
          },
        },
      },
    },
    async (req, reply) => {
      const object = await uploads().read(req.params['*']);
      return reply
        .header('content-type', object.contentType)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(object.bytes);
    },
  );
};
