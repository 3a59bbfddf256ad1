/**
 * `atelier verify`'s downloads: a token's document, its receipt, its image and the collection's
 * document, from the URLs the chain and the documents give (http(s), data: or ipfs:// URLs, the
 * last through an IPFS gateway: docs/permanence.md "Freezing"). A verifier fetches what it is
 * pointed at, like a wallet would; nothing is sent but GETs.
 */
const TIMEOUT_MS = 30_000;
const MAX_BYTES = 64 * 1024 * 1024;

export class FetchError extends Error {
  override name = 'FetchError';
}

/** ipfs://<cid>/<path> as `<gateway>/ipfs/<cid>/<path>` (a path gateway); other URLs as they are. */
export function throughGateway(url: string, gateway: string): string {
  const m = /^ipfs:\/\/(?:ipfs\/)?(.+)$/i.exec(url);
  return m ? `${gateway.replace(/\/+$/, '')}/ipfs/${m[1]}` : url;
}

/** The downloads with ipfs:// URLs fetched through `gateway`. */
export const downloadsThrough = (gateway: string) => ({
  bytes: (url: string) => fetchBytes(throughGateway(url, gateway)),
  json: (url: string) => fetchJson(throughGateway(url, gateway)),
});

export async function fetchBytes(url: string): Promise<Buffer> {
  if (url.startsWith('data:')) {
    const comma = url.indexOf(',');
    if (comma < 0) throw new FetchError(`malformed data URL`);
    const meta = url.slice(5, comma);
    const body = url.slice(comma + 1);
    return meta.endsWith(';base64') ? Buffer.from(body, 'base64') : Buffer.from(decodeURIComponent(body));
  }
  if (!/^https?:\/\//i.test(url))
    throw new FetchError(`cannot fetch ${url || '(empty URL)'}: only http(s), data: and ipfs:// URLs are supported`);
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'follow' });
  } catch (err) {
    throw new FetchError(`GET ${url} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!res.ok) throw new FetchError(`GET ${url} answered ${res.status}`);
  return readCapped(url, res, MAX_BYTES);
}

/** The body, read as it arrives and cut off past `max` bytes: a server cannot fill the verifier's memory. */
export async function readCapped(url: string, res: Response, max: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new FetchError(`GET ${url}: larger than ${max} bytes (content-length ${declared})`);
  }
  if (!res.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch (err) {
      throw new FetchError(`GET ${url} failed while reading: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (next.done) break;
    total += next.value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw new FetchError(`GET ${url}: larger than ${max} bytes`);
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks, total);
}

export async function fetchJson(url: string): Promise<unknown> {
  const bytes = await fetchBytes(url);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new FetchError(`GET ${url}: not JSON`);
  }
}
