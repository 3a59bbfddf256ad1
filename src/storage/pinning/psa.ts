/**
 * A remote pinning service through the IPFS Pinning Service API (docs/permanence.md "Pinning"):
 * `POST <endpoint>/pins` with `{cid, name, origins, meta}` and a Bearer token answers a PinStatus
 * (`requestid`, `status` queued | pinning | pinned | failed); `GET <endpoint>/pins/<requestid>` is
 * polled until pinned or failed. The service fetches the DAG over the IPFS network itself, so the
 * CAR is not uploaded: `origins` (where our copy is) is only a hint. The copy is read back through
 * the service's HTTP gateway.
 */
import { gatewayReader } from './gateway.ts';
import { hostOf, PinTargetError, type PinTarget } from './types.ts';

export interface PsaTargetOptions {
  /** The API's base URL (IPFS_PSA_ENDPOINT), e.g. https://api.example.com/psa; `/pins` is appended. */
  endpoint: string;
  /** IPFS_PSA_TOKEN: the Bearer access token (a secret: never in a message or a log). */
  token: string;
  /** The service's gateway (IPFS_PIN_GATEWAY_URL). */
  gatewayUrl: string;
  /** Multiaddrs where the DAG can be fetched from (a hint to the service). */
  origins: string[];
  /** Between status polls. */
  pollMs: number;
  /** Longest wait for `pinned`. */
  timeoutMs: number;
}

interface PinStatus {
  requestid: string;
  status: 'queued' | 'pinning' | 'pinned' | 'failed';
  info?: Record<string, string>;
}

const STATUSES = new Set(['queued', 'pinning', 'pinned', 'failed']);

function asPinStatus(body: unknown, what: string): PinStatus {
  const b = body as Partial<PinStatus> | null;
  if (!b || typeof b.requestid !== 'string' || typeof b.status !== 'string' || !STATUSES.has(b.status)) {
    throw new PinTargetError(`the pinning service's answer to ${what} is not a PinStatus`);
  }
  return b as PinStatus;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

export class PsaTarget implements PinTarget {
  readonly kind = 'psa';
  readonly label: string;
  private readonly base: string;
  private readonly reader: ReturnType<typeof gatewayReader>;

  constructor(private readonly opts: PsaTargetOptions) {
    this.base = opts.endpoint.replace(/\/+$/, '');
    this.label = `psa ${hostOf(opts.endpoint)}`;
    this.reader = gatewayReader(opts.gatewayUrl);
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<PinStatus> {
    const what = `${method} /pins${path}`;
    let res: Response;
    try {
      res = await fetch(`${this.base}/pins${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.opts.token}`,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      throw new PinTargetError(`the pinning service cannot be reached (${what}): ${(err as Error).message}`);
    }
    const parsed = await res.json().catch(() => undefined);
    if (res.status !== 200 && res.status !== 202) {
      // The spec's Failure body: {error: {reason, details}}.
      const e = (parsed as { error?: { reason?: unknown; details?: unknown } } | undefined)?.error;
      const said = [e?.reason, e?.details]
        .filter((x) => typeof x === 'string')
        .join(': ')
        .slice(0, 300);
      throw new PinTargetError(`the pinning service answered ${res.status} to ${what}${said ? `: ${said}` : ''}`);
    }
    return asPinStatus(parsed, what);
  }

  async pin(_car: Uint8Array, rootCid: string, opts: { name: string; signal?: AbortSignal }): Promise<void> {
    let status = await this.request(
      'POST',
      '',
      {
        cid: rootCid,
        name: opts.name,
        ...(this.opts.origins.length > 0 ? { origins: this.opts.origins } : {}),
        meta: { source: 'atelier' },
      },
      opts.signal,
    );
    const deadline = Date.now() + this.opts.timeoutMs;
    while (status.status === 'queued' || status.status === 'pinning') {
      if (Date.now() > deadline) {
        throw new PinTargetError(
          `the pinning service still says ${status.status} after ${Math.round(this.opts.timeoutMs / 1000)} s (request ${status.requestid}); can it fetch ${rootCid} from the IPFS network?`,
        );
      }
      await sleep(this.opts.pollMs, opts.signal);
      status = await this.request('GET', `/${encodeURIComponent(status.requestid)}`, undefined, opts.signal);
    }
    if (status.status === 'failed') {
      const info = status.info ? Object.values(status.info).join('; ').slice(0, 300) : '';
      throw new PinTargetError(`the pinning service failed to pin ${rootCid} (request ${status.requestid})${info ? `: ${info}` : ''}`);
    }
  }

  fetchPath(rootCid: string, path: string, opts: { signal?: AbortSignal } = {}) {
    return this.reader.fetchPath(rootCid, path, opts);
  }

  fetchBlock(cid: string, opts: { signal?: AbortSignal } = {}) {
    return this.reader.fetchBlock(cid, opts);
  }
}
