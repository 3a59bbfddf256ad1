/** The collection's generation data for a receipt (null when it no longer parses: the receipt omits the options). */
import { normalizeGenerationData, type GenerationData } from '../domain/generation-data.ts';

export function loadGenerationDataSafe(raw: unknown): GenerationData | null {
  try {
    return normalizeGenerationData(raw);
  } catch {
    return null;
  }
}
