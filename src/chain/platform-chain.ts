/**
 * The per-process chain context: RPC clients and one TxSender per chain, the deployment record
 * of each chain, the stale check and platform deployment. Both apps (backend and admin proxy)
 * take one of these; `atelier start` builds a single one for the process. Decisions:
 * docs/chain-operations.md.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getAddress, type Address, type PublicClient } from 'viem';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { AppError } from '../domain/errors.ts';
import { ARTIFACTS_DIR, BUILD_COMMAND, artifactsAvailable, loadArtifact } from './artifacts.ts';
import { DEV_CHAIN_ID, chainInfo, isSupportedChain, publicClientForUrl, rpcUrlFor, type RpcOptions } from './chains.ts';
import { FACET_NAMES, deployPlatform, readDeploymentRecord, writeDeploymentRecord, type DeploymentRecord } from './deploy-platform.ts';
import type { TxSender, TxSenderOptions } from './tx/api.ts';
import { createTxSender } from './tx/sender.ts';
import { withFundsCheck } from './funds.ts';
import { platformAccount, type SignerOptions } from './signers/signer.ts';
import type { ChainLogger } from './wallet.ts';

/** The committed, static per-network records (deployments/<chainId>.json). */
export const COMMITTED_DEPLOYMENTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'deployments');

/** What the chain context reads from the configuration: RPC URLs, the signer, the fee cap and the factory override. */
export type ChainServicesSettings = RpcOptions & SignerOptions & Pick<Config, 'TX_MAX_FEE_MULTIPLIER' | 'NFT_FACTORY_ADDRESS'>;

export interface ChainServicesOptions {
  config: ChainServicesSettings;
  db: Db;
  logger?: ChainLogger;
  /**
   * Where this process writes the records of deployments it makes (and reads them first).
   * `atelier start` uses <dataDir>/deployments; the committed deployments/ is read after it.
   */
  deploymentsDir?: string;
  /** Read-only record directory consulted after deploymentsDir (default: the committed deployments/). */
  committedDeploymentsDir?: string;
  artifactsDir?: string;
  /** Per-chain RPC URL overrides (tests, the embedded anvil). */
  rpcUrls?: Record<number, string>;
  senderOptions?: TxSenderOptions;
  /**
   * Chains whose sender starts now rather than on first use: its catch-up (what the chain lost,
   * every unfinished row, whoever asked for it) then runs in this process from the start (issue
   * 18.1). Every process that may sign passes NFT_CHAIN_ID. A chain without a key is skipped.
   */
  startSenders?: number[];
}

export interface DeploymentStatus {
  deployment: DeploymentRecord;
  factoryAddress: Address;
  stale: boolean;
  error?: string;
}

export interface ChainServices {
  rpcUrl(chainId: number): string;
  client(chainId: number): PublicClient;
  /** The one sender for the chain (created on first use). */
  sender(chainId: number): TxSender;
  /** The platform wallet's address on a chain (no RPC call). */
  walletAddress(chainId: number): Address;
  /** The deployment record of a chain, or undefined. NFT_FACTORY_ADDRESS overrides the factory of NFT_CHAIN_ID. */
  deployment(chainId: number): DeploymentRecord | undefined;
  /** Record plus the stale check (factory without code); throws 404 when there is no record. */
  deploymentStatus(chainId: number): Promise<DeploymentStatus>;
  /** Deploys the platform contracts through the chain's sender and writes the record. */
  deployPlatform(chainId: number): Promise<DeploymentRecord>;
  /** Deploys only when the record is missing or stale (first start of the dev chain). */
  ensureDeployed(chainId: number): Promise<{ deployment: DeploymentRecord; deployed: boolean }>;
  hasCode(chainId: number, address: string): Promise<boolean>;
  /** For the backend's reset route. */
  contractExists(chainId: number, address: string): Promise<boolean>;
  close(): Promise<void>;
}

export function assertSupportedChain(chainId: number, field = 'chainId'): void {
  if (!isSupportedChain(chainId)) {
    // The message of chainInfo lists the supported chains.
    try {
      chainInfo(chainId);
    } catch (err) {
      throw new AppError('invalid', `${field}: ${(err as Error).message}`);
    }
  }
}

export function createChainServices(opts: ChainServicesOptions): ChainServices {
  const { config, db, logger } = opts;
  const clients = new Map<number, PublicClient>();
  const senders = new Map<number, TxSender>();
  const deploying = new Map<number, Promise<DeploymentRecord>>();
  const committedDir = opts.committedDeploymentsDir ?? COMMITTED_DEPLOYMENTS_DIR;
  const artifactsDir = opts.artifactsDir ?? ARTIFACTS_DIR;

  const rpcUrl = (chainId: number): string => {
    assertSupportedChain(chainId);
    const override = opts.rpcUrls?.[chainId];
    if (override) return override;
    try {
      return rpcUrlFor(chainId, config);
    } catch (err) {
      throw new AppError('unavailable', (err as Error).message);
    }
  };

  const client = (chainId: number): PublicClient => {
    let c = clients.get(chainId);
    if (!c) {
      c = publicClientForUrl(chainId, rpcUrl(chainId), { timeoutMs: 10_000, retryCount: 2 });
      clients.set(chainId, c);
    }
    return c;
  };

  const accounts = new Map<number, ReturnType<typeof platformAccount>>();
  const account = (chainId: number) => {
    try {
      let a = accounts.get(chainId);
      if (!a) {
        a = platformAccount(chainId, config, logger);
        accounts.set(chainId, a);
      }
      return a;
    } catch (err) {
      throw new AppError('unavailable', (err as Error).message);
    }
  };

  const sender = (chainId: number): TxSender => {
    let s = senders.get(chainId);
    if (!s) {
      s = withFundsCheck(
        createTxSender({
          db,
          chainId,
          rpcUrl: rpcUrl(chainId),
          account: account(chainId),
          logger,
          options: { maxFeeMultiplier: config.TX_MAX_FEE_MULTIPLIER, ...opts.senderOptions },
        }),
      );
      senders.set(chainId, s);
    }
    return s;
  };

  const deployment = (chainId: number): DeploymentRecord | undefined => {
    const record =
      (opts.deploymentsDir ? readDeploymentRecord(chainId, opts.deploymentsDir) : undefined) ?? readDeploymentRecord(chainId, committedDir);
    if (chainId === config.NFT_CHAIN_ID && config.NFT_FACTORY_ADDRESS) {
      const factory = getAddress(config.NFT_FACTORY_ADDRESS);
      if (!record) {
        // Only the factory is known: the rest of the record is read from it when needed.
        return {
          chainId,
          deployer: '0x0000000000000000000000000000000000000000',
          timestamp: new Date(0).toISOString(),
          contracts: { DiamondFactory: factory } as DeploymentRecord['contracts'],
          blockNumber: 0,
        };
      }
      return { ...record, contracts: { ...record.contracts, DiamondFactory: factory } };
    }
    return record;
  };

  const hasCode = async (chainId: number, address: string): Promise<boolean> => {
    try {
      const code = await client(chainId).getCode({ address: getAddress(address) });
      return code !== undefined && code !== '0x';
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError('upstream', `chain ${chainId} RPC did not answer: ${shortError(err)}`);
    }
  };

  const deploymentStatus = async (chainId: number): Promise<DeploymentStatus> => {
    assertSupportedChain(chainId);
    const record = deployment(chainId);
    if (!record) {
      throw new AppError(
        'not_found',
        `no factory deployment recorded for chain ${chainId}; deploy one with POST /api/nft/deploy {"chainId": ${chainId}}`,
      );
    }
    const factoryAddress = record.contracts.DiamondFactory;
    const live = await hasCode(chainId, factoryAddress);
    return live
      ? { deployment: record, factoryAddress, stale: false }
      : {
          deployment: record,
          factoryAddress,
          stale: true,
          error: `the recorded factory ${factoryAddress} has no code on chain ${chainId} (was the chain reset?); redeploy with POST /api/nft/deploy, then reset and redeploy the collections`,
        };
  };

  const doDeploy = async (chainId: number): Promise<DeploymentRecord> => {
    const names = [...FACET_NAMES, 'CollectionInit', 'DiamondFactory'];
    if (!artifactsAvailable(names, artifactsDir)) {
      throw new AppError(
        'unavailable',
        `Contract artifacts are missing in ${artifactsDir}. Build them with \`${BUILD_COMMAND}\`, then deploy again.`,
      );
    }
    const s = sender(chainId);
    const previous = deployment(chainId);
    const fresh = await deployPlatform({
      rpcUrl: rpcUrl(chainId),
      chainId,
      deployer: s.address,
      artifactsDir,
      send: async (req) => {
        const r = await s.send({ purpose: req.purpose, data: req.data });
        return { hash: r.hash, status: r.status, contractAddress: r.receipt.contractAddress };
      },
    });
    // A redeploy (§7.1 recovery) keeps the stablecoin of the record it replaces while it still has
    // code: payments already made in it stay valid. Without one, the dev chain gets a new one below.
    const kept = previous?.contracts.Stablecoin;
    const record = kept && (await hasCode(chainId, kept)) ? { ...fresh, contracts: { ...fresh.contracts, Stablecoin: kept } } : fresh;
    const dir = opts.deploymentsDir ?? committedDir;
    const file = writeDeploymentRecord(record, dir);
    logger?.info({ chainId, factory: record.contracts.DiamondFactory, file }, 'platform contracts deployed');
    return withDevStablecoin(chainId, record);
  };

  /**
   * The dev chain also gets the stablecoin test token (AtelierTestUSD, open faucet) for paid
   * samples, recorded as `Stablecoin`. Real chains use STABLECOIN_ADDRESS instead.
   */
  const withDevStablecoin = async (chainId: number, record: DeploymentRecord): Promise<DeploymentRecord> => {
    if (chainId !== DEV_CHAIN_ID || !artifactsAvailable(['AtelierTestUSD'], artifactsDir)) return record;
    const current = record.contracts.Stablecoin;
    if (current && (await hasCode(chainId, current))) return record;
    const artifact = loadArtifact('AtelierTestUSD', artifactsDir);
    const r = await sender(chainId).send({ purpose: 'deploy:Stablecoin', data: artifact.bytecode });
    if (r.status !== 'mined' || !r.receipt.contractAddress) throw new AppError('upstream', 'the stablecoin test token deployment reverted');
    const updated = { ...record, contracts: { ...record.contracts, Stablecoin: getAddress(r.receipt.contractAddress) } };
    writeDeploymentRecord(updated, opts.deploymentsDir ?? committedDir);
    logger?.info({ chainId, stablecoin: updated.contracts.Stablecoin }, 'stablecoin test token deployed');
    return updated;
  };

  /** One deployment per chain at a time: concurrent callers share it. */
  const deploy = (chainId: number): Promise<DeploymentRecord> => {
    assertSupportedChain(chainId);
    let p = deploying.get(chainId);
    if (!p) {
      p = doDeploy(chainId).finally(() => deploying.delete(chainId));
      deploying.set(chainId, p);
    }
    return p;
  };

  for (const chainId of opts.startSenders ?? []) {
    try {
      sender(chainId);
    } catch (err) {
      logger?.warn({ chainId, err: shortError(err) }, 'no tx sender for this chain (no key or RPC): its catch-up does not run here');
    }
  }

  return {
    rpcUrl,
    client,
    sender,
    walletAddress: (chainId) => getAddress(account(chainId).address),
    deployment,
    deploymentStatus,
    deployPlatform: deploy,
    async ensureDeployed(chainId) {
      // A chain that came back older than the database (kill -9 of the embedded anvil) gets its
      // lost transactions first, the platform contracts included: never a second deployment.
      await sender(chainId).catchUp();
      const record = deployment(chainId);
      if (record && (await hasCode(chainId, record.contracts.DiamondFactory))) {
        return { deployment: await withDevStablecoin(chainId, record), deployed: false };
      }
      return { deployment: await deploy(chainId), deployed: true };
    },
    hasCode,
    contractExists: hasCode,
    async close() {
      await Promise.all([...senders.values()].map((s) => s.close()));
      senders.clear();
    },
  };
}

/** A one-line error description without stack or request bodies. */
export function shortError(err: unknown): string {
  const e = err as { shortMessage?: string; details?: string; message?: string };
  const text = e?.shortMessage ?? e?.message ?? String(err);
  const details = e?.details && !text.includes(e.details) ? ` (${e.details})` : '';
  return `${text.split('\n')[0]}${details}`.slice(0, 500);
}
