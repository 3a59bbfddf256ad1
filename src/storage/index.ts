/** Builds the configured storage (STORAGE_DRIVER local|s3). */
import path from 'node:path';
import type { Config } from '../config.ts';
import { LocalStorage } from './local.ts';
import { S3Storage } from './s3.ts';
import type { Storage } from './types.ts';

export type { Storage, StoredObject } from './types.ts';

/** The backend route that serves stored files. */
export const FILES_ROUTE = '/files';

/** What the storage reads from the configuration: the driver, its S3 settings, the data directory. */
export type StorageOptions = Pick<
  Config,
  'STORAGE_DRIVER' | 'S3_BUCKET' | 'S3_REGION' | 'S3_ENDPOINT' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_PUBLIC_URL' | 'dataDir'
>;

/** `publicBaseUrl` is the backend's public URL; local files (and private S3 objects) are served there. */
export function createStorage(config: StorageOptions, publicBaseUrl: string): Storage {
  const filesUrl = `${publicBaseUrl.replace(/\/+$/, '')}${FILES_ROUTE}`;
  if (config.STORAGE_DRIVER === 's3') {
    return new S3Storage({
      bucket: config.S3_BUCKET!,
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      publicUrl: config.S3_PUBLIC_URL ?? filesUrl,
      filesRouteUrl: filesUrl,
    });
  }
  return new LocalStorage({ root: path.join(config.dataDir, 'files'), baseUrl: filesUrl });
}
