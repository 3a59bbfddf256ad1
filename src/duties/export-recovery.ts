/**
 * Export recovery (docs/permanence.md "Crashes"), in every backend: builds and pins whose process
 * died (kill -9) are taken over and run again. No lease: each stale row goes to one process by its
 * own conditional claim (db/exports.ts takeOverStaleExports).
 */
import type { PermanenceService } from '../services/permanence.ts';
import { type BackgroundDuty, every } from './runner.ts';

export function startExportRecovery(
  permanence: Pick<PermanenceService, 'resumeStale'>,
  opts: { intervalMs?: number; onError?: (err: unknown) => void } = {},
): BackgroundDuty {
  return every(opts.intervalMs ?? 10_000, () => permanence.resumeStale(), opts.onError);
}
