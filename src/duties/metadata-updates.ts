/**
 * The ERC-4906 MetadataUpdate emitter as a duty (docs/minting.md "ERC-4906 MetadataUpdate"): one
 * pass of services/metadata-updates.ts every `intervalMs` (2 s), in the `metadata-updates` lease holder.
 */
import { emitPendingMetadataUpdates, type MetadataUpdatePorts } from '../services/metadata-updates.ts';
import { type BackgroundDuty, every } from './runner.ts';

export function startMetadataUpdater(
  ports: MetadataUpdatePorts,
  opts: { intervalMs?: number; chainIds?: number[]; onError?: (err: unknown) => void } = {},
): BackgroundDuty {
  return every(opts.intervalMs ?? 2000, () => emitPendingMetadataUpdates(ports, opts), opts.onError);
}
