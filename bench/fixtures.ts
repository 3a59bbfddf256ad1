/** What the job benches share: a collection to generate from and the no-op generator's image. */
import sharp from 'sharp';
import type { Db } from '../src/db/client.ts';
import { createCollection } from '../src/db/collections.ts';
import { normalizeGenerationData } from '../src/domain/generation-data.ts';
import { sampleData } from '../test/helpers/platform.ts';

export function benchCollection(db: Db) {
  return createCollection(db, {
    title: 'Bench',
    description: '',
    editions: 1,
    price: 0,
    blockchain: 'ARBITRUM',
    data: normalizeGenerationData(sampleData()),
    userId: 'bench-user',
  });
}

/** A fixed 8×8 PNG: the no-op generator returns it, so no rendering is measured. */
export const tinyPng = () =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
