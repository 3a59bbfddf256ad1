/**
 * What `atelier start` prints once the platform is up (docs/operations.md "The start banner").
 * A newcomer reads the first URL and opens it: so the console comes first, said to be a page for a
 * browser, then the API docs, then the API base URLs, then the pattern of the public mint pages
 * (docs/mint-page.md). No example that needs an id the reader does not have yet: the mint page line
 * is a pattern, said to be one. Pure text, so the composition root that prints it can move freely.
 */
export interface BannerFacts {
  backendUrl: string;
  adminUrl: string;
  /** "PGlite in .atelier/pgdata", "PostgreSQL (DATABASE_URL)". */
  database: string;
  /** The embedded chain's RPC and id, when this process runs one. */
  chain?: { url: string; chainId: number; stateDir: string };
  factoryAddress?: string;
  /** The credential line(s): how the service key was obtained, or that auth is off. */
  auth: string;
  /** ENABLE_AUTH=false: there is no key to sign in with (default: auth is on). */
  authOff?: boolean;
}

export function startBanner(f: BannerFacts): string {
  const admin = f.adminUrl.replace(/\/$/, '');
  const backend = f.backendUrl.replace(/\/$/, '');
  return [
    '',
    'Atelier is running',
    '',
    `  Console: ${admin}/ (open in a browser${f.authOff ? '' : '; sign in with the service key below'})`,
    `  API docs: ${admin}/docs (admin proxy) · ${backend}/docs (backend)`,
    `  API base: ${admin}/api/nft (admin proxy) · ${backend} (backend)`,
    `  Mint pages: ${backend}/mint/<collection id> (public, for collectors; the console's Share button gives each link)`,
    '',
    `  database     ${f.database}`,
    ...(f.chain ? [`  chain        ${f.chain.url}   (anvil, chain id ${f.chain.chainId}, state in ${f.chain.stateDir})`] : []),
    ...(f.factoryAddress ? [`  factory      ${f.factoryAddress}`] : []),
    '',
    `  ${f.auth}`,
    ...(f.authOff ? [] : ['  send it as  X-API-Key: <key>  or  Authorization: Bearer <key>']),
    '',
  ].join('\n');
}
