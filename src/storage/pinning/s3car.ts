/**
 * An S3-compatible bucket that imports CAR files into IPFS (Filebase style; docs/permanence.md
 * "Pinning"): the CAR is put as an object with the user metadata `import: car`, the service
 * imports and pins its root and names it in the object's `cid` metadata; the copy is read back
 * through the service's HTTP gateway. The S3 client is the storage module's (src/storage/s3.ts).
 */
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { S3Storage } from '../s3.ts';
import { gatewayReader } from './gateway.ts';
import { hostOf, PinTargetError, type PinTarget } from './types.ts';

export interface S3CarTargetOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Object keys start with this (e.g. `atelier/`); the name is `<root>.car`. */
  prefix: string;
  gatewayUrl: string;
}

const reason = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 300);

export class S3CarTarget implements PinTarget {
  readonly kind = 's3car';
  readonly label: string;
  private readonly s3: S3Storage;
  private readonly reader: ReturnType<typeof gatewayReader>;

  constructor(private readonly opts: S3CarTargetOptions) {
    this.label = `s3car ${opts.endpoint ? hostOf(opts.endpoint) : 's3'}/${opts.bucket}`;
    // The storage class only for its configured client (path-style on custom endpoints, checksum settings).
    this.s3 = new S3Storage({
      bucket: opts.bucket,
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.accessKeyId ? { accessKeyId: opts.accessKeyId } : {}),
      ...(opts.secretAccessKey ? { secretAccessKey: opts.secretAccessKey } : {}),
      publicUrl: opts.gatewayUrl,
    });
    this.reader = gatewayReader(opts.gatewayUrl);
  }

  async pin(car: Uint8Array, rootCid: string, opts: { name: string; signal?: AbortSignal }): Promise<void> {
    const key = `${this.opts.prefix}${rootCid}.car`;
    const signal = opts.signal ? { abortSignal: opts.signal } : {};
    try {
      await this.s3.client.send(
        new PutObjectCommand({
          Bucket: this.opts.bucket,
          Key: key,
          Body: car,
          ContentLength: car.length,
          ContentType: 'application/vnd.ipld.car',
          Metadata: { import: 'car', name: opts.name.replace(/[^\x20-\x7e]/g, '?').slice(0, 200) },
        }),
        signal,
      );
    } catch (err) {
      throw new PinTargetError(`putting ${key} into the bucket ${this.opts.bucket} failed: ${reason(err)}`);
    }
    let cid: string | undefined;
    try {
      const head = await this.s3.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: key }), signal);
      cid = head.Metadata?.cid;
    } catch (err) {
      throw new PinTargetError(`reading ${key} back from the bucket ${this.opts.bucket} failed: ${reason(err)}`);
    }
    // The service names the imported root; one that names another refused or rebuilt the DAG.
    if (cid !== undefined && cid !== rootCid) {
      throw new PinTargetError(`the bucket imported ${key} as ${cid}, not ${rootCid}`);
    }
  }

  fetchPath(rootCid: string, path: string, opts: { signal?: AbortSignal } = {}) {
    return this.reader.fetchPath(rootCid, path, opts);
  }

  fetchBlock(cid: string, opts: { signal?: AbortSignal } = {}) {
    return this.reader.fetchBlock(cid, opts);
  }

  close() {
    this.s3.destroy();
  }
}
