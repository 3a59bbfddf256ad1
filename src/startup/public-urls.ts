/**
 * The public base URLs a process writes into records others read (docs/deployment.md "Public
 * URLs"): a token's `image` (a file URL: `{PUBLIC_BASE_URL}/files/…`, or S3_PUBLIC_URL) and its
 * `external_url` and metadata URIs (`METADATA_BASE_URL`, default PUBLIC_BASE_URL). On embedded
 * defaults one process serves everything, so its own address is right. Outside them (DATABASE_URL
 * or REDIS_URL set: replicas and workers share the records) a process falling back to its own
 * host:port would write an address nobody else reaches (a worker's `http://127.0.0.1:3000/files/…`,
 * one replica's external_url differing from another's), so it refuses to start instead.
 */
import { ConfigError } from '../config-error.ts';
import type { Config } from '../config.ts';

/** What the public-URL check reads from the configuration. */
export type PublicUrlOptions = Pick<
  Config,
  'DATABASE_URL' | 'REDIS_URL' | 'STORAGE_DRIVER' | 'S3_PUBLIC_URL' | 'PUBLIC_BASE_URL' | 'METADATA_BASE_URL' | 'HOST' | 'PORT'
>;

/** Why the process is not on embedded defaults, or undefined when it is. */
function sharedStoreOf(config: PublicUrlOptions): string | undefined {
  if (config.DATABASE_URL) return 'DATABASE_URL is set';
  if (config.REDIS_URL) return 'REDIS_URL is set';
  return undefined;
}

/** File URLs come from S3_PUBLIC_URL when objects are public there; otherwise from PUBLIC_BASE_URL's /files route. */
const filesNeedPublicBase = (config: PublicUrlOptions) => !(config.STORAGE_DRIVER === 's3' && config.S3_PUBLIC_URL);

/**
 * Throws a ConfigError naming the missing variable when `command` would write a public URL from its
 * own address while sharing stores with other processes. `start`, `backend` and `worker` write
 * file URLs (generated images, uploads); `start` and `backend` write metadata URLs too.
 */
export function requirePublicUrls(command: string, config: PublicUrlOptions): void {
  if (!['start', 'backend', 'worker'].includes(command)) return;
  const shared = sharedStoreOf(config);
  if (!shared) return;
  const why = `${shared}, so other processes read the URLs this one writes`;
  if (filesNeedPublicBase(config) && !config.PUBLIC_BASE_URL) {
    throw new ConfigError(
      'PUBLIC_BASE_URL',
      `required for atelier ${command} outside the embedded defaults (${why}): set it to the backend's public URL (the load balancer's), from which generated images are served as {PUBLIC_BASE_URL}/files/…; without it this process would write its own http://${config.HOST}:${config.PORT} (docs/deployment.md "Public URLs")`,
    );
  }
  if (command !== 'worker' && !config.METADATA_BASE_URL && !config.PUBLIC_BASE_URL) {
    throw new ConfigError(
      'METADATA_BASE_URL',
      `required for atelier ${command} outside the embedded defaults (${why}): set METADATA_BASE_URL (or PUBLIC_BASE_URL) to the one public URL of token metadata, the same on every replica (docs/deployment.md "Public URLs")`,
    );
  }
}
