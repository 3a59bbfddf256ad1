/**
 * What the NFT services need from the generation pipeline (the artwork of a mint, samples, a
 * token's new artwork): a dry run of the variables before anything is spent, and a generation.
 * The real one is the pipeline (services/wire-nft.ts); unit tests fake it.
 */
import type { CollectionRow } from '../db/collections.ts';
import type { StartGenerationInput, StartGenerationResult } from './generation.ts';

export interface GenerationPort {
  /**
   * 400 naming `body.<field>` when the variables do not fit the collection; nothing else happens.
   * `requiredMayBeOmitted`: samples (a required customizable variable left out is picked like any other).
   * `publicMinter`: only what a public minter may choose (domain/minter-choices.ts).
   */
  checkVariables(
    collection: Pick<CollectionRow, 'id' | 'data'>,
    variables: Record<string, unknown>,
    opts?: { requiredMayBeOmitted?: boolean; publicMinter?: boolean },
  ): void;
  start(input: StartGenerationInput): Promise<StartGenerationResult>;
}
