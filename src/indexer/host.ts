/** The indexer as the HTTP layer sees it (the dependency points inward: http imports this type). */
import type { IndexerEvents } from './events.ts';
import type { LiveStatus } from './watchdog.ts';

/** What an app knows about an indexer running in its process (absent: none). */
export interface IndexerHost {
  chainId: number;
  /** RPC for /api/read; default from the configuration. */
  rpcUrl?: string;
  /** Known contract addresses by name (contract-info); default from deployments/<chainId>.json. */
  contracts?: Record<string, string>;
  /** Realtime events for socket.io on the app's port. */
  events?: IndexerEvents;
  liveStatus?: () => LiveStatus;
  /** Whether this process follows the chain now (holds its lease) or stands by (src/duties/runner.ts). */
  isLeader?: () => boolean;
}
