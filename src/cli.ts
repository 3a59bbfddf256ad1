/**
 * `atelier <command>`: parses argv and configuration (once, here), prepares the data dir and
 * ports, and runs one process root from src/processes/ (start, backend, admin, worker, indexer,
 * deploy, migrate). A bad configuration value stops here with a message naming the variable.
 * `verify` (src/verify/) reads no configuration and touches no data dir: it runs before all that.
 */
import { requirePublicUrls } from './startup/public-urls.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { DataDirLockedError, lockDataDir, restrictUmask, secureDataDir } from './startup/data-dir.ts';
import { helpFor, isKnownCommand, USAGE } from './startup/help.ts';
import { requirePortFree } from './net/ports.ts';
import type { RunningPlatform } from './processes/start.ts';
import { startBanner } from './startup/banner.ts';

/** The process roots (src/processes/), loaded only once a command is to run (help loads none). */
const PROCESSES = {
  start: () => import('./processes/start.ts'),
  backend: () => import('./processes/backend.ts'),
  admin: () => import('./processes/admin.ts'),
  worker: () => import('./processes/worker.ts'),
  indexer: () => import('./processes/indexer.ts'),
  deploy: () => import('./processes/deploy.ts'),
  verify: () => import('./verify/command.ts'),
} as const;

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
      stop().then(
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
async function prepare(command: string, config: Config): Promise<(() => void) | undefined> {
  // A process that writes public URLs has the base URL it needs (startup/public-urls.ts).
  requirePublicUrls(command, config);
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
      const chain = await import('./chain/dev-chain.ts');
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
  // `verify` is a stranger's tool: public data only — no configuration, data dir, lock or database.
  if (command === 'verify') {
    process.exitCode = await (await PROCESSES.verify()).runVerify(argv.slice(1));
    return;
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

  if (command === 'export') {
    // A client of the running platform's API: no data-dir lock, no database (src/processes/export.ts).
    const exp = await import('./processes/export.ts');
    try {
      const args = exp.parseExportArgs(argv);
      const target = exp.exportTarget(config, args.backend);
      const done = await exp.runExportCommand({
        ...target,
        collectionId: args.collectionId,
        carPath: args.carPath,
        ...(args.timeoutMs ? { timeoutMs: args.timeoutMs } : {}),
      });
      process.stdout.write(`root ${done.root_cid}\nimages ${done.images_cid}\nwrote ${done.car_bytes} bytes to ${done.file}\n`);
      return;
    } catch (err) {
      if (err instanceof exp.ExportCommandError) {
        process.stderr.write(`atelier export: ${err.message}\n`);
        process.exit(1);
      }
      throw err;
    }
  }

  const releaseLock = await prepare(command, config);
  // Each command is one process root (src/processes/): it opens its parts in order and answers stop().
  switch (command) {
    case 'start': {
      const platform = await (await PROCESSES.start()).runStart(config);
      onShutdown(() => platform.stop(), releaseLock, config.SHUTDOWN_GRACE_MS);
      process.stdout.write(startBannerFor(platform));
      return;
    }
    case 'backend': {
      const backend = await (await PROCESSES.backend()).runBackend(config);
      onShutdown(() => backend.stop(), releaseLock, config.SHUTDOWN_GRACE_MS);
      process.stdout.write(`backend listening on ${backend.url}\n`);
      return;
    }
    case 'admin': {
      const admin = await (await PROCESSES.admin()).runAdmin(config);
      onShutdown(() => admin.stop(), releaseLock, config.SHUTDOWN_GRACE_MS);
      process.stdout.write(`admin proxy listening on port ${config.ADMIN_PORT}\n`);
      return;
    }
    case 'worker': {
      const worker = await (await PROCESSES.worker()).runWorker(config);
      onShutdown(() => worker.stop(), releaseLock, config.SHUTDOWN_GRACE_MS);
      process.stdout.write(`generation worker running (concurrency ${config.WORKER_CONCURRENCY})\n`);
      return;
    }
    case 'indexer': {
      const running = await (await PROCESSES.indexer()).runIndexer(config, { reindex: argv.includes('--reindex') });
      onShutdown(() => running.stop(), releaseLock, config.SHUTDOWN_GRACE_MS);
      process.stdout.write(`indexer following chain ${running.chainId}; API and socket.io on ${running.url}\n`);
      return;
    }
    case 'deploy': {
      try {
        const d = await (await PROCESSES.deploy()).runDeploy(config);
        process.stdout.write(
          `platform contracts ${d.deployed ? 'deployed' : 'already deployed'} on chain ${config.NFT_CHAIN_ID}: factory ${d.factory} (block ${d.blockNumber})\n`,
        );
      } finally {
        releaseLock?.();
      }
      return;
    }
    case 'migrate': {
      try {
        const { kind } = await (await PROCESSES.deploy()).runMigrate(config);
        process.stdout.write(`migrations applied (${kind})\n`);
      } finally {
        releaseLock?.();
      }
      return;
    }
    default:
      process.stderr.write(`atelier: unknown command "${command}"\n\n${USAGE}`);
      process.exit(2);
  }
}

/** What `atelier start` prints once everything listens (the text itself: src/startup/banner.ts). */
function startBannerFor(platform: RunningPlatform): string {
  const { config, key } = platform;
  const authLine = !config.ENABLE_AUTH
    ? 'authentication is OFF (ENABLE_AUTH=false): every request is let through'
    : key.generated
      ? `service API key (generated, kept in ${key.file}):\n    ${key.key}`
      : process.env.API_KEY
        ? 'service API key: the value of API_KEY'
        : `service API key (from ${key.file}):\n    ${key.key}`;
  return `${startBanner({
    backendUrl: platform.backendUrl,
    adminUrl: platform.adminUrl,
    database: platform.database.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}/pgdata`,
    ...(platform.chainUrl ? { chain: { url: platform.chainUrl, chainId: config.NFT_CHAIN_ID, stateDir: `${config.dataDir}/chain` } } : {}),
    ...(platform.factoryAddress ? { factoryAddress: platform.factoryAddress } : {}),
    auth: authLine,
    authOff: !config.ENABLE_AUTH,
  })}\n`;
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`atelier: configuration error: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof DataDirLockedError || (err instanceof Error && err.name === 'DependencyUnavailableError')) {
    process.stderr.write(`atelier: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`atelier: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
