/**
 * The chain of a platform process. On embedded defaults (DEV_CHAIN true, no NFT_RPC_URL, chain
 * 31337) `atelier start` runs anvil itself on DEV_CHAIN_PORT with its state in
 * <dataDir>/chain/anvil-state.json, so a restart keeps every contract, and deploys the platform
 * contracts when the recorded factory has no code (first start, or a lost state file). The record
 * of that deployment is kept in <dataDir>/deployments/31337.json (the committed deployments/ is
 * the static per-network record, read after it). Decisions: docs/chain-operations.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { ConfigError } from '../config-error.ts';
import type { Config } from '../config.ts';
import { logOptions } from '../logging/log-lines.ts';
import { portFree } from '../net/ports.ts';
import type { Db } from '../db/client.ts';
import { startAnvil, type AnvilInstance } from './anvil.ts';
import { DEV_CHAIN_ID } from './chains.ts';
import { createChainServices, type ChainServices, type ChainServicesSettings } from './platform-chain.ts';
import type { DeploymentRecord } from './deploy-platform.ts';
import type { ChainLogger } from './wallet.ts';

export interface PlatformChain {
  services: ChainServices;
  /** The embedded anvil, when this process runs one. */
  anvil?: AnvilInstance;
  /** RPC URL of NFT_CHAIN_ID (the embedded anvil's on the dev chain). */
  rpcUrl?: string;
  /** The live deployment of NFT_CHAIN_ID when known at start (always on the embedded chain). */
  deployment?: DeploymentRecord;
  /** True when this start deployed the platform contracts. */
  deployed: boolean;
  stop(): Promise<void>;
}

/** What deciding on the embedded chain reads from the configuration. */
export type EmbeddedChainOptions = Pick<Config, 'DEV_CHAIN' | 'NFT_RPC_URL' | 'NFT_CHAIN_ID'>;

export const usesEmbeddedChain = (config: EmbeddedChainOptions): boolean =>
  config.DEV_CHAIN && !config.NFT_RPC_URL && config.NFT_CHAIN_ID === DEV_CHAIN_ID;

/** Where the embedded chain keeps its files: under the data directory. */
export type DevChainPathOptions = Pick<Config, 'dataDir'>;

export function devChainPaths(config: DevChainPathOptions) {
  return {
    statePath: path.join(config.dataDir, 'chain', 'anvil-state.json'),
    /** The pid of the anvil this data directory's platform runs (removed at a clean stop). */
    pidPath: path.join(config.dataDir, 'chain', 'anvil.pid'),
    deploymentsDir: path.join(config.dataDir, 'deployments'),
  };
}

/**
 * The anvil a platform of this data directory started and left behind when it was killed alone
 * (kill -9 of its process is not delivered to its children): the pid file names it, and it is
 * ours only while its command line still names this data directory's state file (Linux /proc;
 * elsewhere nothing is assumed). It is stopped with SIGTERM (anvil writes its state) and awaited.
 * Call it holding the data directory lock (cli.ts): then no live platform of this directory owns
 * it. Answers the pid it stopped, or null.
 */
export async function stopOrphanedAnvil(config: DevChainPathOptions, logger?: ChainLogger): Promise<number | null> {
  const { pidPath, statePath } = devChainPaths(config);
  let pid: number;
  let cmdline: string;
  try {
    pid = Number.parseInt(fs.readFileSync(pidPath, 'utf8'), 10);
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid || !cmdline.includes('anvil') || !cmdline.includes(statePath)) {
    return null;
  }
  logger?.warn({ pid }, 'stopping the anvil a killed platform of this data directory left running');
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return null;
  }
  // Gone, not merely off the port: it writes the state file the new anvil will load.
  for (let i = 0; i < 150 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  return pid;
}

/**
 * Seconds between anvil's state dumps (besides the one at shutdown): a kill -9 loses at most
 * this much of the chain, which the tx sender then broadcasts again (tx/restore.ts). 1 s costs no
 * measurable mint throughput against 5 s (bench/anvil-state.ts, docs/chain-operations.md).
 */
export const STATE_INTERVAL_SECONDS = 1;

/** What starting the process's chain reads from the configuration. */
export type PlatformChainOptions = ChainServicesSettings & EmbeddedChainOptions & DevChainPathOptions & Pick<Config, 'DEV_CHAIN_PORT'>;

export async function startPlatformChain(config: PlatformChainOptions, db: Db, logger?: ChainLogger): Promise<PlatformChain> {
  const { statePath, pidPath, deploymentsDir } = devChainPaths(config);
  if (!usesEmbeddedChain(config)) {
    const services = createChainServices({ config, db, logger, deploymentsDir, startSenders: [config.NFT_CHAIN_ID] });
    return { services, deployed: false, stop: () => services.close() };
  }
  fs.mkdirSync(path.dirname(statePath), { recursive: true });
  // A node already answering on the port would be "ready" at once and we would index its chain,
  // not ours: refuse, naming the variable (docs/security.md).
  if (!(await portFree('127.0.0.1', config.DEV_CHAIN_PORT)) && (await stopOrphanedAnvil(config, logger)) === null) {
    throw new ConfigError(
      'DEV_CHAIN_PORT',
      `port ${config.DEV_CHAIN_PORT} on 127.0.0.1 is already in use (another chain node?); Atelier never attaches to a chain it did not start: stop it or set DEV_CHAIN_PORT to a free port`,
    );
  }
  const anvil = await startAnvil({
    port: config.DEV_CHAIN_PORT,
    chainId: DEV_CHAIN_ID,
    statePath,
    host: '127.0.0.1',
    args: ['--state-interval', String(STATE_INTERVAL_SECONDS)],
  });
  if (anvil.process.pid !== undefined) fs.writeFileSync(pidPath, `${anvil.process.pid}\n`, { mode: 0o600 });
  const services = createChainServices({
    config,
    db,
    logger,
    deploymentsDir,
    rpcUrls: { [DEV_CHAIN_ID]: anvil.rpcUrl },
    startSenders: [DEV_CHAIN_ID],
  });
  const stop = async () => {
    await services.close();
    await anvil.stop(); // SIGTERM: anvil writes its state file
    fs.rmSync(pidPath, { force: true });
  };
  try {
    const { deployment, deployed } = await services.ensureDeployed(DEV_CHAIN_ID);
    return { services, anvil, rpcUrl: anvil.rpcUrl, deployment, deployed, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** What the chain's stderr logger reads from the configuration. */
export type ChainLogOptions = Pick<Config, 'LOG_LEVEL'>;

/**
 * The chain's log lines on stderr (the chain starts before the HTTP apps' loggers), written by pino
 * with every process's options (logging/log-lines.ts): the same level numbers and ISO timestamps.
 */
export function stderrChainLogger(config: ChainLogOptions): ChainLogger | undefined {
  if (config.LOG_LEVEL === 'silent') return undefined;
  return pino(logOptions(config.LOG_LEVEL, 'chain'), pino.destination(2));
}
