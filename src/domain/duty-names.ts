/** The singleton duties' lease names (one lease each; the indexer's carries its chain id): src/duties/. */
export const DUTY = {
  metadataUpdates: 'metadata-updates',
  crashRepair: 'crash-repair',
  jobsReconciler: 'jobs-reconciler',
  walletHealth: 'wallet-health',
  indexer: (chainId: number) => `indexer:${chainId}`,
} as const;
