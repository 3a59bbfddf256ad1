/**
 * Global collections are develop tools (POST /outputs/:id/develop turns an output into a new
 * one; the built-in Animate and Variation among them), not NFT collections: they are never
 * deployed nor minted (docs/collections.md "Global collections are tools").
 */
import { conflict } from './errors.ts';

export function refuseGlobalCollection(c: { id: string; title: string; is_global: boolean }, action: 'deployed' | 'minted'): void {
  if (!c.is_global) return;
  throw conflict(
    `"${c.title}" is a global collection, a develop tool (POST /outputs/:id/develop), and cannot be ${action}; ` +
      'create a collection of your own to deploy and mint',
    { code: 'GLOBAL_COLLECTION' },
  );
}
