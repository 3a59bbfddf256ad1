/**
 * `atelier <command>`: start (everything in one process), backend, admin, migrate.
 * Configuration comes from the environment (see .env.example); a bad value stops here with a
 * message naming the variable.
 */
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { DataDirLockedError, lockDataDir, restrictUmask, secureDataDir } from './startup/data-dir.ts';
import { helpFor, isKnownCommand, USAGE } from './startup/help.ts';
import { requirePortFree } from './net/ports.ts';
import { closeAppWithin } from './startup/graceful.ts';
import { startBanner } from './startup/banner.ts';

/** The platform's modules, loaded only once a command is to run (help loads none of them). */
async function platformModules() {
  const [platform, nftPorts, platformChain, devChain, telemetry] = await Promise.all([
    import('./platform.ts'),
    import('./services/nft-ports.ts'),
    import('./chain/platform-chain.ts'),
    import('./chain/dev-chain.ts'),
    import('./telemetry.ts'),
  ]);
  return {
    ...platform,
    startProcessTelemetry: telemetry.startProcessTelemetry,
    startNftDuties: nftPorts.startNftDuties,
    createChainServices: platformChain.createChainServices,
    usesEmbeddedChain: devChain.usesEmbeddedChain,
    stopOrphanedAnvil: devChain.stopOrphanedAnvil,
  };
}

/** Set by main() before a process starts: flushed after the process's own stop. */
let stopTelemetry: () => Promise<void> = async () => undefined;

/**
 * SIGINT/SIGTERM: one line saying so, a clean stop (in-flight work gets SHUTDOWN_GRACE_MS, then is
 * handed back: src/startup/graceful.ts), exit 0 and one line when stopped. A stop that hangs past
 * the grace and a margin exits 1; a second signal exits at once.
 */
function onShutdown(stop: () => Promise<void>, releaseLock?: () => void, graceMs = 25_000) {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      process.stdout.write(`atelier: ${signal} received, shutting down\n`);
      setTimeout(() => {
        process.stderr.write('atelier: shutdown did not finish after the grace period; exiting\n');
        process.exit(1);
      }, graceMs + 10_000).unref();
      stop()
        .finally(() => stopTelemetry().catch(() => undefined))
        .then(
          () => {
            releaseLock?.();
            process.stdout.write('atelier: stopped\n');
            process.exit(0);
          },
          (err: unknown) => {
            process.stderr.write(`atelier: shutdown failed: ${err instanceof Error ? err.message : String(err)}\n`);
            process.exit(1);
          },
        );
    });
  }
}

/**
 * Before anything starts: an owner-only data directory, its lock (one instance per DATA_DIR when
 * the process keeps state there: `start`, or any command on PGlite) and free ports, each refusal
 * naming the variable (docs/security.md).
 */
async function prepare(
  command: string,
  config: Config,
  chain: { usesEmbeddedChain: (c: Config) => boolean; stopOrphanedAnvil: (c: Config) => Promise<number | null> },
): Promise<(() => void) | undefined> {
  const usesDataDir = command !== 'admin' || !!config.DATABASE_URL;
  if (!usesDataDir) return undefined;
  secureDataDir(config.dataDir);
  const release = command === 'start' || !config.DATABASE_URL ? lockDataDir(config.dataDir, command) : undefined;
  try {
    if (command === 'start') {
      if (config.PORT !== 0 && config.PORT === config.ADMIN_PORT)
        throw new ConfigError('ADMIN_PORT', `must differ from PORT (${config.PORT})`);
      await requirePortFree('PORT', config.HOST, config.PORT, 'the backend');
      await requirePortFree('ADMIN_PORT', config.HOST, config.ADMIN_PORT, 'the admin proxy');
      // Checked again when anvil starts (chain/dev-chain.ts); here it fails before any migration.
      if (chain.usesEmbeddedChain(config)) {
        // The anvil a killed platform of this data directory left running is ours to stop (the lock is held).
        const orphan = await chain.stopOrphanedAnvil(config);
        if (orphan !== null)
          process.stderr.write(`atelier: stopped the chain (anvil, pid ${orphan}) a killed run of this data directory left running\n`);
        await requirePortFree('DEV_CHAIN_PORT', '127.0.0.1', config.DEV_CHAIN_PORT, 'Atelier never attaches to a chain it did not start');
      }
    } else if (command === 'backend' || command === 'indexer') {
      await requirePortFree('PORT', config.HOST, config.PORT, `the ${command}`);
    }
  } catch (err) {
    release?.();
    throw err;
  }
  return release;
}

async function main(argv: string[]): Promise<void> {
  // Asking for help prints it and does nothing else: no configuration, no data dir, no migration.
  const help = helpFor(argv);
  if (help) {
    process.stdout.write(help);
    return;
  }
  const command = argv[0]!;
  if (!isKnownCommand(command)) {
    process.stderr.write(`atelier: unknown command "${command}"\n\n${USAGE}`);
    process.exit(2);
  }
  // Everything this process creates (PGlite's files, anvil's state, keys, uploads) is owner-only.
  restrictUmask();
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

  const {
    ensureServiceKey,
    openConfiguredDatabase,
    publicBaseUrl,
    startAdmin,
    startAll,
    startBackend,
    startWorkerProcess,
    startNftDuties,
    createChainServices,
    usesEmbeddedChain,
    stopOrphanedAnvil,
    startProcessTelemetry,
  } = await platformModules();
  const releaseLock = await prepare(command, config, { usesEmbeddedChain, stopOrphanedAnvil });
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
      onShutdown(() => platform.stop(), releaseLock, config.SHUTDOWN_GRACE_MS);
      const authLine = !config.ENABLE_AUTH
        ? 'authentication is OFF (ENABLE_AUTH=false): every request is let through'
        : key.generated
          ? `service API key (generated, kept in ${key.file}):\n    ${key.key}`
          : process.env.API_KEY
            ? 'service API key: the value of API_KEY'
            : `service API key (from ${key.file}):\n    ${key.key}`;
      process.stdout.write(
        `${startBanner({
          backendUrl: platform.backendUrl ?? '',
          adminUrl: platform.adminUrl ?? '',
          database: platform.database?.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}/pgdata`,
          chain: platform.chainUrl
            ? { url: platform.chainUrl, chainId: config.NFT_CHAIN_ID, stateDir: `${config.dataDir}/chain` }
            : undefined,
          factoryAddress: platform.factoryAddress,
          auth: authLine,
        })}\n`,
      );
      return;
    }
    case 'backend': {
      stopTelemetry = startProcessTelemetry(config, config.REDIS_URL ? ['backend'] : ['backend', 'worker']);
      const database = await openConfiguredDatabase(config);
      await database.migrate();
      // Chain services on the configured RPCs (no embedded anvil: that is `atelier start`'s).
      const chain = createChainServices({
        config,
        db: database.db,
        deploymentsDir: path.join(config.dataDir, 'deployments'),
        startSenders: [config.NFT_CHAIN_ID],
      });
      const app = await startBackend(config, database, { chain });
      // ERC-4906 for completed artwork and the crash repair (mints, deploys): every replica is a
      // candidate, the holder of each duty's lease runs it (db/leased-duty.ts, docs/operations.md).
      const duties = startNftDuties({
        db: database.db,
        config,
        chain,
        metadataBaseUrl: config.METADATA_BASE_URL ?? publicBaseUrl(config),
        log: app.log,
      });
      onShutdown(
        async () => {
          // Leases given up first: another replica takes the duties over at once.
          await duties.stop();
          await closeAppWithin(app, config.SHUTDOWN_GRACE_MS);
          await chain.close();
          await database.close();
        },
        releaseLock,
        config.SHUTDOWN_GRACE_MS,
      );
      process.stdout.write(`backend listening on ${publicBaseUrl(config)}\n`);
      return;
    }
    case 'admin': {
      stopTelemetry = startProcessTelemetry(config, ['admin']);
      // Chain writes are recorded before they are sent: with DATABASE_URL the admin proxy has a
      // tx sender; without it its chain routes answer 503 (docs/chain-operations.md).
      const database = config.DATABASE_URL ? await openConfiguredDatabase(config) : undefined;
      const chain = database
        ? createChainServices({
            config,
            db: database.db,
            deploymentsDir: path.join(config.dataDir, 'deployments'),
            startSenders: [config.NFT_CHAIN_ID],
          })
        : undefined;
      const app = await startAdmin(config, { chain });
      onShutdown(
        async () => {
          await closeAppWithin(app, config.SHUTDOWN_GRACE_MS);
          await chain?.close();
          await database?.close();
        },
        releaseLock,
        config.SHUTDOWN_GRACE_MS,
      );
      process.stdout.write(`admin proxy listening on port ${config.ADMIN_PORT}\n`);
      return;
    }
    case 'worker': {
      stopTelemetry = startProcessTelemetry(config, ['worker']);
      const worker = await startWorkerProcess(config);
      onShutdown(() => worker.stop(), releaseLock, config.SHUTDOWN_GRACE_MS);
      process.stdout.write(`generation worker running (concurrency ${config.WORKER_CONCURRENCY})\n`);
      return;
    }
    case 'indexer': {
      stopTelemetry = startProcessTelemetry(config, ['indexer']);
      const { startIndexerProcess } = await import('./http/indexer-app.ts');
      const running = await startIndexerProcess(config, { reindex: argv.includes('--reindex'), openDatabase: openConfiguredDatabase });
      onShutdown(() => running.stop(), releaseLock, config.SHUTDOWN_GRACE_MS);
      process.stdout.write(`indexer following chain ${running.chainId}; API and socket.io on ${publicBaseUrl(config)}\n`);
      return;
    }
    case 'deploy': {
      // What `atelier start` does on the dev chain, for a topology of separate processes: deploy
      // once, before the replicas, through the tx sender (recorded, so a lost chain is caught up).
      const database = await openConfiguredDatabase(config);
      await database.migrate();
      const chain = createChainServices({
        config,
        db: database.db,
        deploymentsDir: path.join(config.dataDir, 'deployments'),
        startSenders: [config.NFT_CHAIN_ID],
      });
      try {
        const { deployment, deployed } = await chain.ensureDeployed(config.NFT_CHAIN_ID);
        process.stdout.write(
          `platform contracts ${deployed ? 'deployed' : 'already deployed'} on chain ${config.NFT_CHAIN_ID}: factory ${deployment.contracts.DiamondFactory} (block ${deployment.blockNumber})\n`,
        );
      } finally {
        await chain.close();
        await database.close();
        releaseLock?.();
      }
      return;
    }
    case 'migrate': {
      const database = await openConfiguredDatabase(config);
      await database.migrate();
      await database.close();
      releaseLock?.();
      process.stdout.write(`migrations applied (${database.kind})\n`);
      return;
    }
    default:
      process.stderr.write(`atelier: unknown command "${command}"\n\n${USAGE}`);
      process.exit(2);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`atelier: configuration error: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof DataDirLockedError) {
    process.stderr.write(`atelier: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`atelier: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
