/**
 * Reads from an HTTP IPFS gateway (docs/permanence.md "Pinning"): `GET <gateway>/ipfs/<cid>/<path>`
 * for a file, and `GET <gateway>/ipfs/<cid>?format=raw` (Accept `application/vnd.ipld.raw`) for
 * one block. The pinning-service and S3-bucket targets read their copies back through it.
 */
import { PinTargetError } from './types.ts';

const encodePath = (path: string) =>
  path
    .split('/')
    .filter((s) => s !== '')
    .map(encodeURIComponent)
    .join('/');

export function gatewayReader(gatewayUrl: string) {
  const base = gatewayUrl.replace(/\/+$/, '');
  async function get(url: string, accept: string | undefined, signal?: AbortSignal): Promise<Uint8Array> {
    let res: Response;
    try {
      res = await fetch(url, { headers: accept ? { accept } : {}, redirect: 'follow', ...(signal ? { signal } : {}) });
    } catch (err) {
      throw new PinTargetError(`the gateway ${new URL(url).host} cannot be reached: ${(err as Error).message}`);
    }
    if (res.status !== 200) {
      const text = (await res.text().catch(() => '')).slice(0, 200);
      throw new PinTargetError(`the gateway answered ${res.status}${text ? `: ${text}` : ''}`);
    }
    return new Uint8Array(await res.arrayBuffer());
  }
  return {
    fetchPath(rootCid: string, path: string, opts: { signal?: AbortSignal } = {}) {
      return get(`${base}/ipfs/${rootCid}/${encodePath(path)}`, undefined, opts.signal);
    },
    fetchBlock(cid: string, opts: { signal?: AbortSignal } = {}) {
      return get(`${base}/ipfs/${cid}?format=raw`, 'application/vnd.ipld.raw', opts.signal);
    },
  };
}
