/**
 * What every admin route plugin is given (built by src/processes/admin.ts): the route files
 * import this, never app.ts, so app.ts is the only file that imports them (no circle).
 */
import type { Config } from '../../config.ts';
import type { ChainServices } from '../../chain/platform-chain.ts';
import type { Resolver } from '../../net/guarded-fetch.ts';
import type { AuthSettings } from '../plugins/auth.ts';
import type { PublicLimitSettings } from '../plugins/public-limit.ts';
import type { AppShellSettings } from '../plugins/shell.ts';
import type { BackendClient } from './backend-client.ts';
import type { CallerLookup } from './caller-lookup.ts';
import type { AdminUiOptions } from './ui.ts';

export type { BackendClient } from './backend-client.ts';

/**
 * What the admin proxy reads from the configuration: the shell's settings, authentication's, the
 * sign-in limit, the console's CSP, the backend and metadata hosts, and the platform's chain.
 */
export type AdminSettings = AppShellSettings &
  AuthSettings &
  PublicLimitSettings &
  AdminUiOptions['config'] &
  Pick<Config, 'BACKEND_API_URL' | 'METADATA_BASE_URL' | 'OUTSIDE_FETCH_ALLOW_ORIGINS' | 'NFT_CHAIN_ID'>;

export interface AdminDeps {
  config: AdminSettings;
  backend: BackendClient;
  /** Chain operations (deploy, collections on chain, admin actions, metadata); without it those routes answer 503. */
  chain?: ChainServices;
  /** URI prefixes of our own metadata host → where this process reaches it (default METADATA_BASE_URL → BACKEND_API_URL). */
  metadataRewrites?: Array<{ from: string; to: string }>;
  /** Name resolution of the metadata proxy's fetches (SSRF tests); default: the system's. */
  fetchResolver?: Resolver;
  /** Who user credentials are (asked of the backend, briefly cached). */
  callers?: CallerLookup;
}
