/**
 * S3-compatible object storage through @aws-sdk/client-s3. A custom endpoint (MinIO, R2, a local
 * test server...) is addressed path-style. Objects are public through S3_PUBLIC_URL when set
 * (a CDN or a public bucket); otherwise through the backend's `GET /files/<key>`, which reads
 * them with the credentials, so the bucket can stay private.
 */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { contentTypeForKey } from './mime.ts';
import { assertValidKey, encodeKey, keyFromUrlWithBase, type Storage, type StoredObject } from './types.ts';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Public base of objects (S3_PUBLIC_URL, or the backend's files route); a function when known late. */
  publicUrl: string | (() => string);
  /** Our own files route, recognised as ours too when a public URL is set. */
  filesRouteUrl?: string | (() => string);
}

export class S3Storage implements Storage {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly base: () => string;
  private readonly filesRoute: () => string | undefined;

  constructor(opts: S3StorageOptions) {
    this.bucket = opts.bucket;
    const strip = (v: string) => v.replace(/\/+$/, '');
    const { publicUrl, filesRouteUrl } = opts;
    this.base = typeof publicUrl === 'function' ? () => strip(publicUrl()) : () => strip(publicUrl);
    this.filesRoute =
      typeof filesRouteUrl === 'function' ? () => strip(filesRouteUrl()) : () => (filesRouteUrl ? strip(filesRouteUrl) : undefined);
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true } : {}),
      ...(opts.accessKeyId && opts.secretAccessKey
        ? { credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } }
        : {}),
      // Many S3-compatible servers do not implement the newer default checksums.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, bytes: Buffer, contentType: string) {
    assertValidKey(key);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType, ContentLength: bytes.length }),
    );
    return { key, url: this.publicUrl(key) };
  }

  /** An S3 PUT is atomic already: readers see the whole object or none. */
  putNew(key: string, bytes: Buffer, contentType: string) {
    return this.put(key, bytes, contentType);
  }

  async get(key: string): Promise<StoredObject | null> {
    assertValidKey(key);
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const bytes = Buffer.from((await res.Body?.transformToByteArray()) ?? new Uint8Array());
      return { bytes, contentType: res.ContentType ?? contentTypeForKey(key) };
    } catch (err) {
      if (err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404)) {
        return null;
      }
      throw err;
    }
  }

  async delete(key: string) {
    assertValidKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  publicUrl(key: string): string {
    assertValidKey(key);
    return `${this.base()}/${encodeKey(key)}`;
  }

  keyFromUrl(url: string): string | null {
    const filesRoute = this.filesRoute();
    return keyFromUrlWithBase(url, this.base()) ?? (filesRoute ? keyFromUrlWithBase(url, filesRoute) : null);
  }

  destroy() {
    this.client.destroy();
  }
}
