// One generation's live state, from its job stream: queued, generating with %, completed, or
// failed with a Retry button (POST /api/nft/jobs/<id>/retry; the stream is then followed again).
import { api } from '../api.js';
import { STATUS_TONE, act, badge, errorText, feedback, h, say } from '../dom.js';
import { followJob } from './job-stream.js';

/** The job's status as the console names it. */
export const stateOf = (status) => ({ pending: 'queued', processing: 'generating' })[status] ?? status;

/**
 * `initial`: {state, progress, error} known before the stream answers (e.g. from the token list).
 * `onCompleted(job)`: the artwork is ready (the caller re-reads the token for its image).
 */
export function jobProgress(jobId, initial = {}, { onCompleted } = {}) {
  const status = h('span', { class: 'job-state' });
  const fill = h('span', { class: 'fill' });
  const bar = h('span', { class: 'bar', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100 }, fill);
  const percent = h('span', { class: 'percent', 'data-field': 'percent' });
  const error = h('span', { class: 'bad job-error', 'data-field': 'job-error' });
  const line = feedback();
  const retry = h('button', { type: 'button', class: 'secondary small', 'data-action': 'retry', hidden: true }, 'Retry');
  const el = h(
    'div',
    { class: 'job', 'data-job': jobId },
    h('div', { class: 'job-line' }, status, bar, percent),
    error,
    h('div', { class: 'job-line' }, retry, line),
  );
  let stop = () => {};
  let done = false;

  function show(state, progress, message) {
    el.dataset.state = state;
    status.replaceChildren(badge(state, STATUS_TONE[state] ?? 'neutral', { 'data-field': 'job-state' }));
    const p = state === 'completed' ? 100 : Math.max(0, Math.min(100, Math.round(progress ?? 0)));
    fill.style.width = `${p}%`;
    bar.setAttribute('aria-valuenow', String(p));
    bar.hidden = state === 'failed';
    percent.textContent = state === 'generating' ? `${p} %` : state === 'queued' ? 'waiting for a worker' : '';
    error.textContent = state === 'failed' ? (message ?? 'the generation failed') : '';
    retry.hidden = state !== 'failed';
  }

  function follow() {
    stop();
    // The newest state known: history entries and job reads, in the order the database wrote them.
    // A job_update can carry a job read just before an entry it comes with committed (older than
    // that entry): it is not let to take the display back. Entry and job change share one time.
    let newest = 0;
    const finished = (job) => {
      if (!done) {
        done = true;
        onCompleted?.(job);
      }
    };
    stop = followJob(jobId, {
      onEntry(entry) {
        const at = Date.parse(entry.created_at);
        if (at < newest) return;
        newest = at;
        const state = stateOf(entry.status);
        show(state, entry.progress, entry.message);
        if (state === 'completed') finished(null);
      },
      onJob(job) {
        const at = Date.parse(job.updated_at);
        if (at < newest) return;
        newest = at;
        const state = stateOf(job.status);
        show(state, job.progress, job.error_message);
        if (state === 'completed') finished(job);
      },
      onError(err) {
        say(line, `live progress unavailable: ${errorText(err)}`, 'bad');
      },
    });
  }

  retry.addEventListener('click', () =>
    act(retry, line, async () => {
      await api('POST', `/api/nft/jobs/${encodeURIComponent(jobId)}/retry`);
      show('queued', 0);
      follow();
      return 'Retrying.';
    }),
  );

  show(initial.state ?? 'queued', initial.progress, initial.error);
  if (initial.state !== 'completed') follow();
  return { el, dispose: () => stop() };
}
