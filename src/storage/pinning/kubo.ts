/**
 * A Kubo node through its RPC API (docs/permanence.md "Pinning"), by `kubo-rpc-client`, which
 * sends every call as a POST: `dag/import` uploads the CAR as a multipart file with
 * `pin-roots=true` and answers each root with its pin error (empty when pinned); `cat` and
 * `block/get` read the node's copy back.
 */
import { create, type KuboRPCClient } from 'kubo-rpc-client';
import { CID } from 'multiformats/cid';
import { hostOf, PinTargetError, type PinTarget } from './types.ts';

export interface KuboTargetOptions {
  /** The RPC API's base URL (IPFS_KUBO_RPC_URL), e.g. http://127.0.0.1:5001. */
  url: string;
  /** Sent as the Authorization header (IPFS_KUBO_RPC_AUTH: `Basic …` or `Bearer …`), when the API is behind one. */
  authorization?: string;
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

export class KuboTarget implements PinTarget {
  readonly kind = 'kubo';
  readonly label: string;
  private readonly client: KuboRPCClient;

  constructor(opts: KuboTargetOptions) {
    this.label = `kubo ${hostOf(opts.url)}`;
    this.client = create({ url: opts.url, ...(opts.authorization ? { headers: { authorization: opts.authorization } } : {}) });
  }

  async pin(car: Uint8Array, rootCid: string, opts: { name: string; signal?: AbortSignal }): Promise<void> {
    const roots: { cid: string; error: string }[] = [];
    try {
      for await (const { root } of this.client.dag.import([car], { pinRoots: true, ...(opts.signal ? { signal: opts.signal } : {}) })) {
        roots.push({ cid: root.cid.toString(), error: root.pinErrorMsg ?? '' });
      }
    } catch (err) {
      throw new PinTargetError(`Kubo dag/import failed: ${reason(err)}`);
    }
    const ours = roots.find((r) => r.cid === rootCid);
    if (!ours)
      throw new PinTargetError(
        `Kubo dag/import did not report the root ${rootCid} (it reported ${roots.map((r) => r.cid).join(', ') || 'no root'})`,
      );
    if (ours.error) throw new PinTargetError(`Kubo could not pin ${rootCid}: ${ours.error}`);
  }

  async fetchPath(rootCid: string, path: string, opts: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    try {
      for await (const part of this.client.cat(`${rootCid}/${path}`, opts.signal ? { signal: opts.signal } : {})) parts.push(part);
    } catch (err) {
      throw new PinTargetError(`Kubo cat failed: ${reason(err)}`);
    }
    return Buffer.concat(parts);
  }

  async fetchBlock(cid: string, opts: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    try {
      return await this.client.block.get(CID.parse(cid), opts.signal ? { signal: opts.signal } : {});
    } catch (err) {
      throw new PinTargetError(`Kubo block/get failed: ${reason(err)}`);
    }
  }
}
