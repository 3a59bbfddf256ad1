// A job's server-sent events (GET /api/nft/jobs/<id>/stream): history_init, job_update,
// job_history. Read with fetch and a ReadableStream, because EventSource cannot send the
// Authorization header. Reconnects with Last-Event-ID (so nothing is missed or repeated) until the
// job ends or the caller stops it.
import { ApiError, authHeaders, rejected } from '../api.js';

const TERMINAL = new Set(['completed', 'failed']);

/** Splits a text stream into SSE events: {event, data, id}. Comments (": heartbeat") are skipped. */
export function sseParser(onEvent) {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    const blocks = buffer.split(/\r?\n\r?\n/);
    buffer = blocks.pop();
    for (const block of blocks) {
      const ev = { event: 'message', data: '', id: undefined };
      const data = [];
      for (const line of block.split(/\r?\n/)) {
        if (!line || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'event') ev.event = value;
        else if (name === 'data') data.push(value);
        else if (name === 'id') ev.id = value;
      }
      if (data.length === 0) continue;
      ev.data = data.join('\n');
      onEvent(ev);
    }
  };
}

/**
 * Follows one job. `onJob(job)` gets every job_update (status, progress, error_message);
 * `onEntry(entry)` every history entry ({id, status, progress, message}); `onError(err)` a failure
 * to follow it (the stream refused, or gone for good). Answers stop().
 */
export function followJob(jobId, { onJob, onEntry, onError }) {
  const abort = new AbortController();
  let lastId;
  let ended = false;
  let failures = 0;

  async function once() {
    const headers = { accept: 'text/event-stream', ...authHeaders() };
    if (lastId) headers['last-event-id'] = lastId;
    const res = await fetch(`/api/nft/jobs/${encodeURIComponent(jobId)}/stream`, { headers, signal: abort.signal });
    if (!res.ok) {
      let message = res.statusText;
      try {
        message = (await res.json()).error ?? message;
      } catch {
        /* not JSON */
      }
      // A refused credential locks the console, as on every other call.
      if (res.status === 401) rejected(message);
      throw new ApiError(res.status, message);
    }
    failures = 0;
    const parse = sseParser((ev) => {
      if (ev.id) lastId = ev.id;
      if (ev.event === 'job_update') {
        const job = JSON.parse(ev.data);
        if (TERMINAL.has(job.status)) ended = true;
        onJob(job);
      } else if (ev.event === 'job_history' || ev.event === 'history_init') {
        // Each entry carries the job's status and progress as it wrote them: a job_update read
        // just before the entry committed can be older than the entry, so the entries count too.
        for (const entry of [].concat(JSON.parse(ev.data))) onEntry?.(entry);
      }
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parse(value);
    }
  }

  (async () => {
    while (!ended && !abort.signal.aborted) {
      try {
        await once();
      } catch (err) {
        if (abort.signal.aborted) return;
        // A refusal (401, 403, 404) will not change by retrying.
        if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
          onError?.(err);
          return;
        }
        if (++failures > 5) {
          onError?.(err);
          return;
        }
      }
      if (!ended && !abort.signal.aborted) await new Promise((r) => setTimeout(r, Math.min(1000 * 2 ** failures, 10_000)));
    }
  })();

  return () => abort.abort();
}
