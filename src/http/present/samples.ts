/** Responses of the sample routes (schemas: http/schemas/samples.ts). */
import type { SampleRow } from '../../db/samples.ts';

/** Backend §4.2 sample routes answer `{success, …}`; `data` carries the same fields for envelope clients. */
export const successAndEnvelope = <T extends Record<string, unknown>>(fields: T) => ({
  success: true as const,
  ...fields,
  data: fields,
  error: null,
});

const statusOf = (s: string | null): 'pending' | 'completed' | 'failed' =>
  s === 'completed' ? 'completed' : s === 'failed' || s === 'hidden' ? 'failed' : 'pending';

export function presentSample({
  sample,
  output,
}: {
  /** wallet_address null: hidden from this caller (services/samples.ts `list`). */
  sample: Omit<SampleRow, 'wallet_address'> & { wallet_address: string | null };
  output: { status: string; url: string | null; input_metadata: unknown } | null;
}) {
  const traits =
    Array.isArray(sample.traits) && sample.traits.length > 0
      ? sample.traits
      : ((output?.input_metadata as { traits?: unknown } | null)?.traits ?? []);
  const status = statusOf(output?.status ?? null);
  return {
    outputId: sample.output_id,
    jobId: sample.job_id,
    url: status === 'completed' ? (output?.url ?? null) : null,
    status,
    is_free: sample.is_free,
    wallet_address: sample.wallet_address,
    created_at: sample.created_at.toISOString(),
    traits: Array.isArray(traits) ? traits : [],
  };
}
