/** `atelier --help` and `atelier <command> --help`: text only; asking for help never starts anything. */

export const USAGE = `usage: atelier <command> [--help]

commands:
  start     backend, admin proxy and every embedded service in one process
  backend   the backend service only (PORT)
  admin     the admin proxy only (ADMIN_PORT)
  worker    a generation worker on the BullMQ queue (REDIS_URL, WORKER_CONCURRENCY);
            /healthz and /readyz on WORKER_HEALTH_PORT
  migrate   apply database migrations and exit
  deploy    deploy the platform contracts to NFT_CHAIN_ID unless its recorded factory has code,
            record them in DATA_DIR/deployments, and exit (once per chain, before the replicas)
  indexer   the ownership indexer with its API and socket.io on PORT (docs/indexer.md);
            indexer --reindex rebuilds every indexed row from the start block first
  verify    check a collection from public data alone: verify --rpc <url> <chainId>:<address>
            (seeds, picks, images, receipts; no database, key or configuration)
  export    export <collection id> --car <file>: a closed collection as a CAR, through the
            running platform's API (docs/permanence.md)

\`atelier <command> --help\` describes one command. Configuration: environment variables (.env.example).
`;

export const VERIFY_HELP = `usage: atelier verify --rpc <url> [--from-block <n>] [--gateway <url>] <chainId>:<collection address>

Checks a collection from public data alone (docs/fairness.md "Verify"): the revealed seed secret
against the contract's commitment; for each minted token, its seed recomputed from the secret and
the block that mined it (checked against the chain), every platform pick recomputed from the seed,
the image served against the receipt's sha256, a built-in renderer's picture re-rendered, and the
receipts' Merkle root in contractURI when published. No database, key or configuration.
  --rpc <url>         a JSON-RPC endpoint of the collection's chain
  --from-block <n>    look for the mints from this block (the collection's deployment block)
  --gateway <url>     the IPFS gateway ipfs:// URLs are fetched through, as <url>/ipfs/<cid>/<path>
                      (a frozen collection's; default https://ipfs.io)
Exit: 0 every token checks out; 1 something differs; 2 bad arguments or unreachable RPC;
3 nothing differs but the secret is not revealed yet (seeds not recomputed).
`;

const COMMANDS: Record<string, string> = {
  start: `usage: atelier start

Runs the whole platform in one process: backend on PORT, admin proxy on ADMIN_PORT, the generation
worker, the indexer and, on defaults, PGlite in DATA_DIR/pgdata and an anvil dev chain on
DEV_CHAIN_PORT with its state in DATA_DIR/chain. Generates a service key in DATA_DIR/api-key when
API_KEY is unset. One instance per DATA_DIR (a lock file names the running one).
`,
  backend: `usage: atelier backend

The backend service only, on PORT: every REST route except /api/nft/*. Uses DATABASE_URL (or PGlite
in DATA_DIR), REDIS_URL for the job queue, NFT_RPC_URL and the other chain settings.
`,
  admin: `usage: atelier admin

The admin proxy only, on ADMIN_PORT: /api/nft/*, forwarding database operations to
BACKEND_API_URL with API_KEY; chain operations need DATABASE_URL (the tx sender records every write).
`,
  worker: `usage: atelier worker

A generation worker taking steps from the BullMQ queue (REDIS_URL required), WORKER_CONCURRENCY at
a time. /healthz and /readyz (database, queue) on WORKER_HEALTH_PORT (3002).
`,
  migrate: `usage: atelier migrate

Applies the database migrations (DATABASE_URL, or PGlite in DATA_DIR/pgdata) and exits.
`,
  deploy: `usage: atelier deploy

Applies the migrations, then deploys the platform contracts (facets, CollectionInit, DiamondFactory)
to NFT_CHAIN_ID on NFT_RPC_URL with NFT_DEPLOYER_PRIVATE_KEY through the platform's tx sender, unless
the recorded factory (NFT_FACTORY_ADDRESS, DATA_DIR/deployments or deployments/) already has code.
Writes DATA_DIR/deployments/<chainId>.json, which every process sharing DATA_DIR reads, and exits.
Run it once per chain before the replicas (docs/deployment.md); running it again changes nothing.
`,
  export: `usage: atelier export <collection id> --car <file> [--backend <url>] [--timeout <seconds>]

Asks the running platform's API for a content-addressed export of a collection whose sale is
closed (POST /nft/collections/:id/export), waits until it is ready, downloads the CARv1 file to
<file> and prints its root CID (docs/permanence.md). Opens no database. The backend is --backend,
else BACKEND_API_URL, else http://127.0.0.1:PORT; the key is API_KEY, else DATA_DIR/api-key.
`,
  indexer: `usage: atelier indexer [--reindex]

The ownership indexer with its API and socket.io on PORT (docs/indexer.md).
  --reindex   rebuild every indexed row from the start block first
`,
  verify: VERIFY_HELP,
};

/** The help text for argv, or undefined when argv asks to run something. */
export function helpFor(argv: string[]): string | undefined {
  const [command, ...rest] = argv;
  const asked = (a: string) => a === '--help' || a === '-h' || a === 'help';
  if (!command || asked(command)) return USAGE;
  if (!rest.some(asked)) return undefined;
  return COMMANDS[command] ?? USAGE;
}

export const isKnownCommand = (command: string): boolean => command in COMMANDS;
