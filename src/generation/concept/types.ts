/** Turning a text concept into a collection definition (docs/api/nft.md §1.2, §4.1.1, §4.3 setup). */
import type { GenerationData, Variable } from '../../domain/generation-data.ts';

export interface ConceptRequest {
  concept: string;
  /** Design-stage style preferences, free text. */
  style?: string;
}

export interface GeneratedCollection {
  title: string;
  description: string;
  /** The image prompt with `$variable` references. */
  prompt: string;
  variables: Variable[];
  data: GenerationData;
}

export interface ConceptExpander {
  readonly kind: 'offline' | 'openai';
  expand(req: ConceptRequest): Promise<GeneratedCollection>;
}
