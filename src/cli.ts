/**
 * `atelier <command>`: start (everything in one process), backend, admin, migrate.
 * Configuration comes from the environment (see .env.example); a bad value stops here with a
 * message naming the variable.
 */
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { startNftDuties } from './services/nft-ports.ts';
import { createChainServices } from './chain/platform-chain.ts';
import { startProcessTelemetry } from './telemetry.ts';
import {
  ensureServiceKey,
  openConfiguredDatabase,
  publicBaseUrl,
  startAdmin,
  startAll,
  startBackend,
  startWorkerProcess,
} from './platform.ts';

const USAGE = `usage: atelier <command>

commands:
  start     backend, admin proxy and every embedded service in one process
  backend   the backend service only (PORT)
  admin     the admin proxy only (ADMIN_PORT)
  worker    a generation worker on the BullMQ queue (REDIS_URL, WORKER_CONCURRENCY)
  migrate   apply database migrations and exit
  indexer   the ownership indexer with its API and socket.io on PORT (docs/indexer.md);
            indexer --reindex rebuilds every indexed row from the start block first
`;

/** Set by main() before a process starts: flushed after the process's own stop. */
let stopTelemetry: () => Promise<void> = async () => undefined;

function onShutdown(stop: () => Promise<void>) {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      stop()
        .finally(() => stopTelemetry().catch(() => undefined))
        .then(
          () => process.exit(0),
          () => process.exit(1),
        );
    });
  }
}

async function main(argv: string[]): Promise<void> {
  const command = argv[0];
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`atelier: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  switch (command) {
    case 'start': {
      // One heartbeat per service this process runs (the indexer only when there is a chain to follow).
      stopTelemetry = startProcessTelemetry(config, [
        'backend',
        'admin',
        'worker',
        ...(config.NFT_RPC_URL || config.DEV_CHAIN ? ['indexer'] : []),
      ]);
      const key = ensureServiceKey(config);
      config = { ...config, API_KEY: key.key };
      const platform = await startAll(config);
      onShutdown(() => platform.stop());
      const authLine = !config.ENABLE_AUTH
        ? 'authentication is OFF (ENABLE_AUTH=false): every request is let through'
        : key.generated
          ? `service API key (generated, kept in ${key.file}):\n    ${key.key}`
          : process.env.API_KEY
            ? 'service API key: the value of API_KEY'
            : `service API key (from ${key.file}):\n    ${key.key}`;
      process.stdout.write(
        [
          '',
          'Atelier is running',
          `  backend      ${platform.backendUrl}   (API docs: ${platform.backendUrl}/docs)`,
          `  admin proxy  ${platform.adminUrl}   (API docs: ${platform.adminUrl}/docs)`,
          `  database     ${platform.database?.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}/pgdata`}`,
          ...(platform.chainUrl
            ? [`  chain        ${platform.chainUrl}   (anvil, chain id ${config.NFT_CHAIN_ID}, state in ${config.dataDir}/chain)`]
            : []),
          ...(platform.factoryAddress ? [`  factory      ${platform.factoryAddress}`] : []),
          '',
          `  ${authLine}`,
          '  send it as  X-API-Key: <key>  or  Authorization: Bearer <key>',
          '',
          `  try: curl -H "X-API-Key: <key>" ${platform.adminUrl}/api/nft/collections/lookup?collectionId=<uuid>`,
          '',
        ].join('\n') + '\n',
      );
      return;
    }
    case 'backend': {
      stopTelemetry = startProcessTelemetry(config, config.REDIS_URL ? ['backend'] : ['backend', 'worker']);
      const database = await openConfiguredDatabase(config);
      await database.migrate();
      // Chain services on the configured RPCs (no embedded anvil: that is `atelier start`'s).
      const chain = createChainServices({ config, db: database.db, deploymentsDir: path.join(config.dataDir, 'deployments') });
      const app = await startBackend(config, database, { chain });
      // ERC-4906 for completed artwork and the crash repair (mints, deploys): at start and on a
      // timer; safe in every replica (services/nft-ports.ts).
      const duties = startNftDuties({
        db: database.db,
        config,
        chain,
        metadataBaseUrl: config.METADATA_BASE_URL ?? publicBaseUrl(config),
        log: app.log,
      });
      onShutdown(async () => {
        await duties.stop();
        await app.close();
        await chain.close();
        await database.close();
      });
      process.stdout.write(`backend listening on ${publicBaseUrl(config)}\n`);
      return;
    }
    case 'admin': {
      stopTelemetry = startProcessTelemetry(config, ['admin']);
      // Chain writes are recorded before they are sent: with DATABASE_URL the admin proxy has a
      // tx sender; without it its chain routes answer 503 (docs/chain-operations.md).
      const database = config.DATABASE_URL ? await openConfiguredDatabase(config) : undefined;
      const chain = database
        ? createChainServices({ config, db: database.db, deploymentsDir: path.join(config.dataDir, 'deployments') })
        : undefined;
      const app = await startAdmin(config, { chain });
      onShutdown(async () => {
        await app.close();
        await chain?.close();
        await database?.close();
      });
      process.stdout.write(`admin proxy listening on port ${config.ADMIN_PORT}\n`);
      return;
    }
    case 'worker': {
      stopTelemetry = startProcessTelemetry(config, ['worker']);
      const worker = await startWorkerProcess(config);
      onShutdown(() => worker.stop());
      process.stdout.write(`generation worker running (concurrency ${config.WORKER_CONCURRENCY})\n`);
      return;
    }
    case 'indexer': {
      stopTelemetry = startProcessTelemetry(config, ['indexer']);
      const { startIndexerProcess } = await import('./http/indexer-app.ts');
      const running = await startIndexerProcess(config, { reindex: argv.includes('--reindex'), openDatabase: openConfiguredDatabase });
      onShutdown(() => running.stop());
      process.stdout.write(`indexer following chain ${running.chainId}; API and socket.io on ${publicBaseUrl(config)}\n`);
      return;
    }
    case 'migrate': {
      const database = await openConfiguredDatabase(config);
      await database.migrate();
      await database.close();
      process.stdout.write(`migrations applied (${database.kind})\n`);
      return;
    }
    default:
      process.stderr.write(`atelier: unknown command "${command}"\n\n${USAGE}`);
      process.exit(2);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`atelier: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
