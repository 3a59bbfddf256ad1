/**
 * `atelier deploy` and `atelier migrate`: one-shot processes. deploy does what `atelier start` does
 * on the dev chain, for a topology of separate processes: deploy once, before the replicas,
 * through the tx sender (recorded, so a lost chain is caught up).
 */
import path from 'node:path';
import type { Config } from '../config.ts';
import { createChainServices } from '../chain/platform-chain.ts';
import { openConfiguredDatabase } from './shared.ts';

/** Applies the migrations; answers which database kind it migrated. */
export async function runMigrate(config: Config): Promise<{ kind: string }> {
  const database = await openConfiguredDatabase(config);
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
  return { kind: database.kind };
}

/** Applies the migrations and deploys the platform contracts unless its recorded factory has code. */
export async function runDeploy(config: Config): Promise<{ factory: string; blockNumber: number; deployed: boolean }> {
  const database = await openConfiguredDatabase(config);
  try {
    await database.migrate();
    const chain = createChainServices({
      config,
      db: database.db,
      deploymentsDir: path.join(config.dataDir, 'deployments'),
      startSenders: [config.NFT_CHAIN_ID],
    });
    try {
      const { deployment, deployed } = await chain.ensureDeployed(config.NFT_CHAIN_ID);
      return { factory: deployment.contracts.DiamondFactory, blockNumber: deployment.blockNumber, deployed };
    } finally {
      await chain.close();
    }
  } finally {
    await database.close();
  }
}
