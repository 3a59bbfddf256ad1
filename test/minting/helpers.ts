/**
 * A platform for the minting and samples tests: a throwaway anvil with the platform contracts and
 * the AtelierTestUSD stablecoin, the real backend and admin apps with a job queue, a generation
 * worker (small procedural images) and a TxSender for the platform wallet (anvil account 0).
 */
import { eq } from 'drizzle-orm';
import { encodeFunctionData, getAddress, parseEventLogs, type Address, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { atelierTestUSDAbi, diamondFactoryAbi } from '../../contracts/abi/index.ts';
import { ANVIL_PRIVATE_KEYS } from '../../src/chain/anvil.ts';
import { type DeploymentRecord } from '../../src/chain/deploy-platform.ts';
import type { MintingChainAccess } from '../../src/chain/mint.ts';
import { type TxSender } from '../../src/chain/tx/api.ts';
import { createTxSender } from '../../src/chain/tx/sender.ts';
import type { Db } from '../../src/db/client.ts';
import { collections } from '../../src/db/schema/index.ts';
import { metadataUrls } from '../../src/domain/contract-params.ts';
import { ProceduralConnector, type GeneratorConnector } from '../../src/generation/connectors/index.ts';
import type { StepPayload } from '../../src/generation/pipeline.ts';
import { startGenerationWorker, type RunningGenerationWorker } from '../../src/generation/runtime.ts';
import { InProcessQueue } from '../../src/queue/index.ts';
import type { LocalAnvil } from '../helpers/anvil-local.ts';
import { setupChain, type walletFor } from '../helpers/kit.ts';
import { asService, call, sampleData, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { waitForReceipt } from '../../src/chain/wait-receipt.ts';

export interface MintingPlatform extends TestPlatform {
  anvil: LocalAnvil;
  client: PublicClient;
  chain: MintingChainAccess;
  deployment: DeploymentRecord;
  stablecoin: Address;
  platformAddress: Address;
  worker?: RunningGenerationWorker;
  /** Creates a collection through the backend and deploys it on anvil with baseURI on this backend. */
  deployedCollection(opts?: { editions?: number; data?: unknown; title?: string }): Promise<{ id: string; address: Address }>;
  /** Wallet client of anvil account i (i ≥ 1 for users; 0 is the platform). */
  wallet(i: number): ReturnType<typeof walletFor>;
}

const small = new ProceduralConnector();
const smallConnector: GeneratorConnector = {
  kind: 'procedural-small',
  generate: (req, onProgress, signal) => small.generate({ ...req, width: 128, height: 128 }, onProgress, signal),
};

export async function startMintingPlatform(opts: { env?: Record<string, string>; worker?: boolean } = {}): Promise<MintingPlatform> {
  const testChain = await setupChain({ contracts: true, stablecoin: true });
  const { anvil, client, platformAddress } = testChain;
  const deployment = testChain.deployment!;
  const stablecoin = testChain.stablecoin!;

  const holder: { db?: Db; sender?: TxSender } = {};
  const chain: MintingChainAccess = {
    client: () => client,
    sender: () =>
      (holder.sender ??= createTxSender({
        db: holder.db!,
        chainId: 31337,
        rpcUrl: anvil.rpcUrl,
        account: privateKeyToAccount(ANVIL_PRIVATE_KEYS[0]),
        options: { pollIntervalMs: 20 },
      })),
    walletAddress: () => platformAddress,
    deployment: () => ({ contracts: { ...deployment.contracts, Stablecoin: stablecoin } }),
  };
  const queue = new InProcessQueue<StepPayload>('generation');
  const p = await startTestPlatform(opts.env ?? {}, { jobQueue: queue, mintingChain: chain });
  holder.db = p.database.db;
  const worker =
    opts.worker === false
      ? undefined
      : await startGenerationWorker({
          config: p.config,
          database: p.database,
          storage: p.storage,
          queue,
          concurrency: 2,
          reconcile: false,
          applyOptions: { stepWriteBackoffMs: [5, 10, 20] },
          connectorFor: () => smallConnector,
        });

  return {
    ...p,
    anvil,
    client,
    chain,
    deployment,
    stablecoin,
    platformAddress,
    worker,
    wallet: testChain.wallet,
    async deployedCollection(o = {}) {
      const created = await call(`${p.backendUrl}/nft/collections`, {
        body: {
          title: o.title ?? 'Minting Test',
          description: 'Tokens for tests',
          editions: o.editions ?? 1000,
          data: o.data ?? sampleData(),
        },
        headers: asService(),
      });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.data.collection.id as string;
      const urls = metadataUrls(p.backendUrl, id);
      // Through the platform's sender: it owns account 0's nonces (the MetadataUpdate poller sends too).
      const sent = await chain.sender(31337).send({
        purpose: 'test_create_collection',
        to: deployment.contracts.DiamondFactory,
        data: encodeFunctionData({
          abi: diamondFactoryAbi,
          functionName: 'createCollection',
          args: [
            {
              name: 'Minting Test',
              symbol: 'MINT',
              baseURI: urls.baseURI,
              contractURI: urls.contractURI,
              maxSupply: BigInt(o.editions ?? 1000),
              royaltyReceiver: platformAddress,
              royaltyBps: 0n,
              owner: platformAddress,
              minter: platformAddress,
            },
          ],
        }),
      });
      const hash = sent.hash;
      const receipt = sent.receipt;
      const [ev] = parseEventLogs({ abi: diamondFactoryAbi, logs: receipt.logs, eventName: 'CollectionCreated' });
      const address = getAddress(ev!.args.diamond);
      await p.database.db
        .update(collections)
        .set({ contract_address: address, chain_id: 31337, deploy_tx_hash: hash, base_token_uri: urls.baseURI, mint_status: 'deployed' })
        .where(eq(collections.id, id));
      return { id, address };
    },
    async close() {
      await worker?.close().catch(() => undefined);
      await queue.close().catch(() => undefined);
      await holder.sender?.close().catch(() => undefined);
      await p.close();
      await testChain.close();
    },
  };
}

/** Sends `amount` tUSD from anvil account `from` to `to` (minting it first); returns the hash. */
export async function payStablecoin(
  mp: MintingPlatform,
  from: number,
  to: Address,
  amount: bigint,
  token: Address = mp.stablecoin,
): Promise<Hex> {
  const w = mp.wallet(from);
  const faucet = await w.writeContract({
    address: mp.stablecoin,
    abi: atelierTestUSDAbi,
    functionName: 'mint',
    args: [w.account.address, amount],
  } as never);
  await waitForReceipt(mp.client, faucet);
  const hash = await w.writeContract({ address: token, abi: atelierTestUSDAbi, functionName: 'transfer', args: [to, amount] } as never);
  await waitForReceipt(mp.client, hash);
  return hash;
}

export { sleep, waitFor } from '../helpers/wait.ts';
