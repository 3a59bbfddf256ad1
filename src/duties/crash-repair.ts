/**
 * The crash repair of mints and deploys as a duty (services/crash-repair.ts, docs/minting.md): one
 * pass now and every `intervalMs` (5 s), in the `crash-repair` lease holder; safe if run twice.
 */
import { repairPass, type RepairPorts } from '../services/crash-repair.ts';
import { type BackgroundDuty, every } from './runner.ts';

export function startRepairer(
  ports: RepairPorts,
  opts: { intervalMs?: number; onError?: (err: unknown) => void; onRepaired?: (what: Record<string, number>) => void } = {},
): BackgroundDuty {
  return every(
    opts.intervalMs ?? 5_000,
    async () => {
      const repaired = await repairPass(ports);
      if (repaired) opts.onRepaired?.(repaired);
    },
    opts.onError,
  );
}
