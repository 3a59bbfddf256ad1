/**
 * Uploads (docs/api/content.md §4.6, §8; docs/content.md): base64 files into storage, optionally
 * recorded as flat files, and reading stored files back (GET /files/*).
 *
 * Invariants: the storage path is built only from the identifier kind, the identifier and a fresh
 * uuid (a client's filename never becomes part of it); the stored type is what the bytes are
 * (magic numbers), and the declared type must agree. Uploading for another identity (a
 * `miniapp_user_id` or `fid` that is not the caller's) is the operator's (`upload.for_other`).
 */
import { randomUUID } from 'node:crypto';
import type { NewFlatFile } from '../db/flat-files.ts';
import { invalid, notFound } from '../domain/errors.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import { assertUploadSize, decodeBase64, decodedLength, pathSegment } from '../domain/uploads.ts';
import { ALLOWED_UPLOAD_TYPES, EXTENSION, sniffType } from '../storage/mime.ts';
import { keyProblem, type Storage, type StoredObject } from '../storage/types.ts';
import { requireOwner } from './ownership.ts';

/** The identity provider whose account ids are fids (docs/feed.md). */
export const FID_PROVIDER = 'provider_e';

export interface UploadPorts {
  storage: Pick<Storage, 'put' | 'get'>;
  flatFiles: { create(input: NewFlatFile): Promise<{ id: number }> };
  /** The caller's fid, when their account has one. */
  fidOf(userId: string): Promise<string | null>;
}

export interface UploadInput {
  base64Data: string;
  filename?: string;
  mimeType?: string;
  createFlatFile: boolean;
  relType: string;
  miniappUserId?: string;
  fid?: string;
}

const allowed = ALLOWED_UPLOAD_TYPES.join(', ');

export function createUploadService(ports: UploadPorts) {
  /** Who owns the file: miniapp_user_id, else fid, else the caller (§4.6); another's only for the operator. */
  async function ownerOf(caller: Caller, input: UploadInput) {
    if (input.miniappUserId) {
      if (!(caller.kind === 'user' && caller.userId === input.miniappUserId)) authorize(caller, 'upload.for_other');
      return { pathType: 'miniapp-userid' as const, owner: input.miniappUserId };
    }
    if (input.fid) {
      if (!(caller.kind === 'user' && (await ports.fidOf(caller.userId)) === input.fid)) authorize(caller, 'upload.for_other');
      return { pathType: 'fid' as const, owner: input.fid };
    }
    // The operator naming no user uploads for the platform (a platform file, no owner).
    if (caller.kind === 'service' && !caller.userId) return { pathType: 'platform' as const, owner: null };
    return { pathType: 'user-id' as const, owner: requireOwner(caller) };
  }

  return {
    async upload(caller: Caller, input: UploadInput) {
      authorize(caller, 'upload.create');
      const { pathType, owner } = await ownerOf(caller, input);
      assertUploadSize(decodedLength(input.base64Data));
      const { bytes, declaredType } = decodeBase64(input.base64Data);
      assertUploadSize(bytes.length);
      let declared = input.mimeType ?? 'image/png';
      if (!input.mimeType && declaredType) {
        if (!(ALLOWED_UPLOAD_TYPES as readonly string[]).includes(declaredType)) {
          throw invalid(`body.base64Data: data URL type ${declaredType} is not one of ${allowed}`);
        }
        declared = declaredType;
      }
      const actual = sniffType(bytes);
      if (!actual) throw invalid(`body.base64Data: the content is not one of ${allowed} (checked by its bytes)`);
      if (actual !== declared) throw invalid(`body.mimeType: declared ${declared}, but the content is ${actual}`);

      const name = `${randomUUID()}.${EXTENSION[actual]}`;
      const key = owner === null ? `user-uploads/platform/${name}` : `user-uploads/${pathType}/${pathSegment(owner)}/${name}`;
      const stored = await ports.storage.put(key, bytes, actual);
      const flatFile = input.createFlatFile
        ? await ports.flatFiles.create({ url: key, mime_type: actual, size: bytes.length, user_id: owner, rel_type: input.relType })
        : null;
      return {
        url: key,
        path: key,
        public_url: stored.url,
        size: bytes.length,
        mimeType: actual,
        filename: input.filename ?? randomUUID(),
        ...(flatFile ? { flatFileId: flatFile.id } : {}),
      };
    },

    /** A stored file (public): 400 for a key that is not one, 404 when nothing is stored there. */
    async read(key: string): Promise<StoredObject> {
      const problem = keyProblem(key);
      if (problem) throw invalid(`path: ${problem}`);
      const object = await ports.storage.get(key);
      if (!object) throw notFound(`file ${key}`);
      return object;
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
