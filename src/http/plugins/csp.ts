/**
 * The Content-Security-Policy of the pages the platform serves itself (the console, docs/admin-ui.md;
 * the public mint page, docs/mint-page.md): scripts, styles and API calls from this origin only, no
 * inline script; images also from the platform's own file hosts (token artwork is stored there).
 */
import type { Config } from '../../config.ts';

/** What the page CSP reads from the configuration: the hosts that serve our stored files and metadata. */
export type CspOptions = Pick<Config, 'BACKEND_API_URL' | 'PUBLIC_BASE_URL' | 'METADATA_BASE_URL' | 'S3_PUBLIC_URL'>;

/** Origins (scheme://host:port) of the hosts that serve our stored files and metadata. */
export function imageOrigins(config: CspOptions): string[] {
  return originsOf([config.BACKEND_API_URL, config.PUBLIC_BASE_URL, config.METADATA_BASE_URL, config.S3_PUBLIC_URL]);
}

function originsOf(urls: ReadonlyArray<string | undefined>): string[] {
  const origins = new Set<string>();
  for (const u of urls) {
    if (!u) continue;
    try {
      const { protocol, origin } = new URL(u);
      if (protocol === 'http:' || protocol === 'https:') origins.add(origin);
    } catch {
      /* config already validated these */
    }
  }
  return [...origins];
}

/**
 * `frameAncestors`: who may frame the page — `'none'` for the console and the full mint page, `*`
 * for the mint page's embed widget (it is made to sit in any site's iframe). `imageUrls`: more
 * image hosts (the backend's own public URL, whose /files serves artwork without PUBLIC_BASE_URL).
 */
export function pageCsp(config: CspOptions, opts: { frameAncestors: "'none'" | '*'; imageUrls?: readonly string[] }): string {
  const images = new Set([...imageOrigins(config), ...originsOf(opts.imageUrls ?? [])]);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // 'self' covers the same origin's ws:/wss: too (CSP 3): socket.io's WebSocket upgrade.
    "connect-src 'self'",
    ['img-src', "'self'", 'data:', ...images].join(' '),
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${opts.frameAncestors}`,
  ].join('; ');
}
