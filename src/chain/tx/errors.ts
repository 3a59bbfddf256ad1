/**
 * What a failed RPC call means for the tx sender: retry it, treat it as success, realign the
 * nonce, or give up. Nodes differ in wording (geth, anvil, Arbitrum, hosted RPCs), so the
 * classification reads the whole cause chain: error names, HTTP status, JSON-RPC code and text.
 * Pure. The node's own words win over transport hints: a refusal that arrives with HTTP 500 is
 * still a refusal.
 */
import { storableText } from '../../domain/text.ts';

export type ErrorKind =
  /** Network trouble, timeouts, 5xx, rate limits: the same call may succeed later. */
  | 'transient'
  /** The node already has this exact transaction: the broadcast is done. */
  | 'already-known'
  /** The nonce is already used on chain (mined). */
  | 'nonce-too-low'
  /** Another transaction with this nonce is in the pool with equal or higher fees. */
  | 'underpriced'
  /** maxFeePerGas below the current base fee: re-sign with fresh fees. */
  | 'fee-too-low'
  /** Revert, insufficient funds, invalid transaction...: retrying cannot help. */
  | 'permanent';

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  details?: unknown;
  shortMessage?: unknown;
  status?: unknown;
  code?: unknown;
  cause?: unknown;
}

function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let e: unknown = err;
  while (e && typeof e === 'object' && out.length < 10) {
    out.push(e as ErrorLike);
    e = (e as ErrorLike).cause;
  }
  return out;
}

/**
 * The words to classify: the node's and the transport's, not viem's. A viem error (it has a
 * `shortMessage`) contributes only its `details`, which carry the node's message; its own text
 * is generic ("Missing or invalid parameters." for every JSON-RPC -32000, whatever the node said)
 * and its `message` also holds the request URL and body, which must never decide anything.
 */
function nodeText(links: ErrorLike[]): string {
  return links
    .flatMap((l) => (typeof l.shortMessage === 'string' ? [l.details] : [l.message, l.details]))
    .filter((t): t is string => typeof t === 'string')
    .join(' | ');
}

const TRANSIENT_TEXT =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EAI_AGAIN|ENOTFOUND|socket hang up|fetch failed|network error|timed? ?out|rate.?limit|too many requests|header not found|temporarily unavailable|service unavailable|bad gateway|gateway timeout/i;
const TRANSIENT_HTTP = new Set([408, 425, 429, 500, 502, 503, 504]);

export function classifyError(err: unknown): ErrorKind {
  const links = chain(err);
  const text = nodeText(links);
  if (/already known|already imported|known transaction|alreadyknown/i.test(text)) return 'already-known';
  if (/nonce too low|nonce has already been used|oldnonce|nonce is too low/i.test(text)) return 'nonce-too-low';
  if (/underpriced/i.test(text)) return 'underpriced';
  if (/(max fee per gas|fee ?cap).{0,40}less than.{0,20}base ?fee/i.test(text)) return 'fee-too-low';
  if (/insufficient funds|execution reverted|revert|intrinsic gas too low|exceeds block gas limit|invalid/i.test(text)) {
    return 'permanent';
  }
  for (const l of links) {
    if (l.name === 'TimeoutError') return 'transient';
    if (l.name === 'HttpRequestError') {
      // No status: the request never got an HTTP answer (connection refused or reset).
      if (typeof l.status !== 'number' || TRANSIENT_HTTP.has(l.status)) return 'transient';
    }
    // -32005 limit exceeded; 429 used as a JSON-RPC code by some providers.
    if (l.code === -32005 || l.code === 429) return 'transient';
    if (typeof l.code === 'string' && /^E(CONNREFUSED|CONNRESET|TIMEDOUT|PIPE|AI_AGAIN)$/.test(l.code)) return 'transient';
  }
  if (TRANSIENT_TEXT.test(text)) return 'transient';
  return 'permanent';
}

/** A short, key-free description of an error for the row's `error` column and logs. */
export function describeError(err: unknown): string {
  const first = chain(err)[0];
  const short = typeof first?.shortMessage === 'string' ? first.shortMessage : undefined;
  const details = typeof first?.details === 'string' ? first.details : undefined;
  const message = typeof first?.message === 'string' ? first.message.split('\n')[0] : String(err);
  const text = short ? (details && !short.includes(details) ? `${short} (${details})` : short) : message;
  // One line: some of viem's short messages span two. No other control characters: a node's
  // rendering of a custom error's arguments carries their raw bytes (NUL for a zero argument),
  // which a PostgreSQL text column refuses (the row could then never be marked failed).
  return storableText(text!.replace(/\s*\n\s*/g, ' '))
    .replace(/[\u0001-\u001f\u007f]/g, ' ')
    .slice(0, 1000);
}
