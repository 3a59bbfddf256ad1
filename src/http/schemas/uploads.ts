/** Request and response schemas of uploads (docs/api/content.md §4.6; shared with the admin proxy's upload-image). */
import { z } from 'zod';
import { ALLOWED_UPLOAD_TYPES } from '../../storage/mime.ts';
import { uuid } from './common.ts';
import { envelope } from './envelope.ts';
import { EXAMPLE_PNG_BASE64, EXAMPLE_UPLOAD_PATH, EXAMPLE_URL, withExample } from './examples.ts';

export const allowedUploadTypes = ALLOWED_UPLOAD_TYPES.join(', ');

export const uploadMimeType = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(ALLOWED_UPLOAD_TYPES, { message: `expected one of ${allowedUploadTypes}` }));

/** A display name only: no separators, no dot-only names, no control characters. */
export const uploadFilename = z
  .string()
  .max(255)
  .refine((v) => !/[/\\]/.test(v), 'must not contain / or \\')
  .refine((v) => !/^\.+$/.test(v.trim()) && !v.includes('..'), 'must not contain ..')
  // eslint-disable-next-line no-control-regex
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must not contain control characters');

export const relType = z.string().regex(/^[a-z0-9_]{1,50}$/, 'expected 1-50 of a-z, 0-9, _');

export const uploadBody = withExample(
  z.object({
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
  }),
  { base64Data: EXAMPLE_PNG_BASE64, filename: 'fox-reference.png', mimeType: 'image/png', create_flat_file: true },
);

export const uploadResult = withExample(
  z.object({
    url: z.string().describe('the storage path'),
    path: z.string().describe('the storage path (same as url)'),
    public_url: z.string().describe('where to fetch the file'),
    size: z.number().int(),
    mimeType: z.string(),
    filename: z.string(),
    flatFileId: z.number().int().optional(),
  }),
  {
    url: EXAMPLE_UPLOAD_PATH,
    path: EXAMPLE_UPLOAD_PATH,
    public_url: `${EXAMPLE_URL.base}/files/${EXAMPLE_UPLOAD_PATH}`,
    size: 70,
    mimeType: 'image/png',
    filename: 'fox-reference.png',
    flatFileId: 12,
  },
);

/** GET /files/<key>: the storage key (the upload example's file). */
export const fileParams = z.object({ '*': withExample(z.string().min(1), EXAMPLE_UPLOAD_PATH) });
export type UploadResult = z.infer<typeof uploadResult>;

export const uploadResponse = envelope(uploadResult);
