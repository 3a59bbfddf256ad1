/**
 * The real ports of the NFT services and their composition for one process: db/ functions bound
 * to its database, chain/ actions on its chain services (or the narrower minting access tests
 * give), the generation pipeline on its job queue. The app builders and the composition root call
 * these; nothing else wires an NFT service.
 */
import { type Address, getAddress, type Hex } from 'viem';
import { collectionAbi } from '../../contracts/abi/index.ts';
import type { Config } from '../config.ts';
import { DEV_CHAIN_ID } from '../chain/chains.ts';
import { readCollection, readRoyalty } from '../chain/collection.ts';
import { deployCollection } from '../chain/factory.ts';
import { emitMetadataUpdate, mintTokens, type MintingChainAccess } from '../chain/mint.ts';
import { verifyPayment } from '../chain/payments.ts';
import type { ChainServices } from '../chain/platform-chain.ts';
import { createSaleService, type SaleService } from './sale.ts';
import type { PurchaseStore } from './sale-purchases.ts';
import {
  backOffPurchase,
  cancelPurchase,
  claimPurchases,
  markChoicesInvalid,
  markScanned,
  markStarted,
  reorgedPurchases,
  tryInsertPurchases,
  unclaimedMintTxs,
} from '../db/sale-purchases.ts';
import type { PermanenceService } from './permanence.ts';
import { createPinTarget } from '../storage/pinning/index.ts';
import { permanenceOn } from './wire-permanence.ts';
import { hasExactDeck } from '../db/fairness.ts';
import { deploymentOf, mintedTokensOf, verifyDeployment } from '../chain/receipts.ts';
import { TxTimeoutError } from '../chain/tx/api.ts';
import type { Db } from '../db/client.ts';
import {
  collectionHeader,
  createCollection,
  getCollection,
  resetCollection,
  updateCollection,
  type CollectionRow,
} from '../db/collections.ts';
import { createDeck, getDeck } from '../db/decks.ts';
import { claimDeploy, deployingCollections, finishDeploy, latestTransactionByKeyPrefix, releaseDeploy } from '../db/deploy-claims.ts';
import { linkedWalletOf } from '../db/wallets.ts';
import {
  finishIdempotencyKey,
  insertIdempotencyKey,
  readIdempotencyKey,
  releaseIdempotencyKey,
  renewIdempotencyKey,
  takeOverIdempotencyKey,
} from '../db/idempotency.ts';
import {
  avatarOfUser,
  avatarOfWallet,
  createMintedDeck,
  deckWithArtwork,
  findTokenDeck,
  linkCover,
  listMints,
  mintsMissingDecks,
  pendingMetadataUpdates,
  recordMinted,
  releaseDecksOfUnlandedMints,
  remintedDecks,
  setMintState,
  unmintDecksOfReorgedMints,
  tokensForMetadata,
} from '../db/minting.ts';
import { getOutput } from '../db/outputs.ts';
import { isWalletOf } from '../db/wallets.ts';
import { addCredits, debitCredits } from '../db/credits.ts';
import {
  claimMintPayment,
  releaseMintPayment,
  earlierMintPayment,
  returnWalletMints,
  takeWalletMints,
  walletMintCount,
} from '../db/mint-policy.ts';
import { createMintGate } from './mint-gate.ts';
import {
  allowanceUsage,
  claimPayment,
  endPaymentLease,
  insertSamples,
  listSamples,
  paidSampleCount,
  releasePayment,
  resumablePayment,
  returnFreeSamples,
  takeFreeSamples,
} from '../db/samples.ts';
import { AppError, invalid } from '../domain/errors.ts';
import { resolveVariables, VariableError } from '../domain/variables.ts';
import { checkMinterChoices } from '../domain/minter-choices.ts';
import { exactRevealOf, fairnessDocument, fairSeedsOf, receiptsOf } from './wire-fairness.ts';
import { createConceptExpander, type ConceptExpander } from '../generation/concept/index.ts';
import { loadGenerationData, type StepPayload } from '../generation/pipeline.ts';
import { startGeneration } from './wire-generation.ts';
import type { WorkQueue } from '../queue/index.ts';
import type { Storage } from '../storage/types.ts';
import { createCollectionService } from './collections.ts';
import { blockchainOf } from '../domain/chain-names.ts';
import { createDeployService, DeployPending, type DeployChain } from './deploy.ts';
import type { GenerationPort } from './generation-port.ts';
import { createIdempotency } from './idempotency.ts';
import { createCollectionViews, type ChainState } from './collection-views.ts';
import { createMetadataDocuments, type MetadataCache } from './metadata-documents.ts';
import {
  collectionGasSpent,
  latestMints,
  listCollections,
  tokenPage,
  tokenTransactions,
  tokenView,
  traitCounts,
  transfersOf,
} from '../db/collection-views.ts';
import { createMintPageService } from './mint-page.ts';
import { METADATA_UPDATE_KEY_PREFIX, type MetadataUpdatePorts } from './metadata-updates.ts';
import { createMintingService } from './minting.ts';
import { bindDb } from './ports.ts';
import { createSampleService, type PaymentChain } from './samples.ts';

/** The chain side of deployments: chain/factory.ts through the chain's sender. */
export function deployChainOf(chain: ChainServices): DeployChain {
  return {
    factory: (chainId) => chain.deploymentStatus(chainId),
    walletAddress: (chainId) => chain.sender(chainId).address,
    async deploy(chainId, factory, params, key) {
      try {
        const d = await deployCollection({
          client: chain.client(chainId),
          sender: chain.sender(chainId),
          factory,
          params,
          idempotencyKey: key,
        });
        return { address: d.address, txHash: d.txHash, salt: d.salt, predictedAddress: d.predictedAddress };
      } catch (err) {
        if (err instanceof TxTimeoutError) throw new DeployPending(err.hash);
        throw err;
      }
    },
    verifyCreated: (chainId, contract, hash) => verifyDeployment(chain, chainId, contract, hash as Hex | undefined),
    deploymentOf,
  };
}

/** The generation pipeline on a job queue. */
export function generationPortOf(ctx: {
  db: Db;
  config: Config;
  queue: WorkQueue<StepPayload>;
  storage?: Storage;
  metadataBaseUrl?: string;
}): GenerationPort {
  return {
    checkVariables(collection, variables, opts = {}) {
      const data = loadGenerationData(collection.id, collection.data);
      try {
        if (opts.publicMinter) checkMinterChoices(data, variables);
        resolveVariables(data, variables, { seed: 0, requiredMayBeOmitted: opts.requiredMayBeOmitted ?? false });
      } catch (err) {
        if (err instanceof VariableError) throw invalid(`body.${err.field}: ${err.message}`, { code: err.code });
        throw err;
      }
    },
    start: (input) => startGeneration(ctx, input),
  };
}

/** Stablecoin payments (docs/minting.md "Payment verification"): configured, else the dev chain's defaults. */
export function paymentChainOf(config: Config, access: MintingChainAccess): PaymentChain {
  return {
    settings(chainId) {
      const token = config.STABLECOIN_ADDRESS ?? (access.deployment?.(chainId)?.contracts?.Stablecoin as string | undefined);
      if (!token) throw new AppError('unavailable', `paid samples are not available on chain ${chainId}: set STABLECOIN_ADDRESS`);
      const recipient = config.COMPUTE_RECIPIENT_ADDRESS ?? (chainId === DEV_CHAIN_ID ? access.walletAddress?.(chainId) : undefined);
      if (!recipient)
        throw new AppError('unavailable', `paid samples are not available on chain ${chainId}: set COMPUTE_RECIPIENT_ADDRESS`);
      const confirmations = config.SAMPLE_PAYMENT_CONFIRMATIONS ?? (chainId === DEV_CHAIN_ID ? 1 : 3);
      return { token: getAddress(token), recipient: getAddress(recipient as Address), confirmations };
    },
    verify: (req) => verifyPayment(access.client(req.chainId), req),
  };
}

export function metadataUpdatePortsOf(db: Db, access: MintingChainAccess): MetadataUpdatePorts {
  return {
    pending: (limit) => pendingMetadataUpdates(db, METADATA_UPDATE_KEY_PREFIX, limit),
    emit: (req) => emitMetadataUpdate(access, req),
  };
}

const mintStore = (db: Db) =>
  bindDb(db, {
    getCollection,
    findTokenDeck,
    recordMinted,
    createMintedDeck,
    setMintState,
    linkCover,
    getOutput,
    getDeck,
    createDeck,
    avatarOfUser,
    avatarOfWallet,
    listMints,
    deckWithArtwork,
  });

export function deployServiceOf(db: Db, opts: { chainId: number; metadataBaseUrl: string; chain?: ChainServices }) {
  const { chain, metadataBaseUrl } = opts;
  return createDeployService({
    store: bindDb(db, {
      getCollection,
      claimDeploy,
      finishDeploy,
      releaseDeploy,
      deployingCollections,
      latestTransactionByKeyPrefix,
      linkedWalletOf,
      isWalletOf,
    }),
    chain: chain ? deployChainOf(chain) : undefined,
    metadataBaseUrl,
    chainId: opts.chainId,
  });
}

export interface NftServiceDeps {
  db: Db;
  config: Config;
  metadataBaseUrl: string;
  /** Where the backend's public pages are served (the mint page the collection document links); default metadataBaseUrl. */
  publicBaseUrl?: string;
  /** Chain services: deployments, reset's check, mints and payments (503 without). */
  chain?: ChainServices;
  /** Mint and payment access when narrower than `chain` (tests); default `chain`. */
  mintingChain?: MintingChainAccess;
  /** Whether a contract still has code (reset); default none (the check is skipped). */
  contractExists?: (chainId: number, address: string) => Promise<boolean>;
  jobQueue?: WorkQueue<StepPayload>;
  storage?: Storage;
  conceptExpander?: ConceptExpander;
  metadataCache?: MetadataCache;
  /** Tells the other replicas when a token's document changed (services/metadata-invalidation.ts); default: this cache only. */
  onTokenChanged?: (collectionId: string, tokenId?: number) => void;
  log?: (err: unknown, message: string) => void;
}

export type NftServices = ReturnType<typeof createNftServices>;

/** What a deployed collection's contract says (the console's overview). */
function chainStateReader(chain: ChainServices) {
  return async (chainId: number, address: string): Promise<ChainState> => {
    const client = chain.client(chainId);
    const [c, royalty] = await Promise.all([readCollection(client, address as Hex), readRoyalty(client, address as Hex)]);
    return {
      name: c.name,
      symbol: c.symbol,
      owner: c.owner,
      minter: c.minter,
      totalSupply: c.totalSupply,
      maxSupply: c.maxSupply,
      mintActive: c.mintActive,
      royalty,
    };
  };
}

/** The public mint page's reads (docs/mint-page.md) over the database, the sale and the fairness state. */
function mintPageOf(db: Db, access: MintingChainAccess | undefined, sale: SaleService, fairness: ReturnType<typeof fairSeedsOf>) {
  return createMintPageService({
    getCollection: (id) => getCollection(db, id),
    collectionsAt: async (chainId, address) =>
      (await listCollections(db, { chainId, contractAddress: address, limit: 1 })).map((c) => c.id),
    ...(access
      ? {
          readSale: (id: string) => sale.read(id),
          readSupply: async (chainId: number, address: string) => {
            const client = access.client(chainId);
            const read = (functionName: 'totalSupply' | 'maxSupply') =>
              client.readContract({ address: address as Address, abi: collectionAbi, functionName }) as Promise<bigint>;
            const [minted, max] = await Promise.all([read('totalSupply'), read('maxSupply')]);
            return { minted: String(minted), max: String(max) };
          },
        }
      : {}),
    fairness: (c) => fairness.publicState(c),
    latestMints: async (id, limit) =>
      (await latestMints(db, id, limit)).map((r) => ({
        token_id: r.token_id,
        image: r.output_status === 'completed' ? r.output_url : null,
        minted_at: r.minted_at,
        owner: r.current_owner ?? r.mint_recipient,
        traits: r.traits
          .filter((a) => a && typeof a.trait_type === 'string')
          .map((a) => ({ trait_type: a.trait_type, value: typeof a.value === 'number' ? a.value : String(a.value) })),
      })),
  });
}

/** Every NFT service of one backend. */
export function createNftServices(deps: NftServiceDeps) {
  const { db, config, metadataBaseUrl } = deps;
  const access = deps.mintingChain ?? deps.chain;
  const generation = deps.jobQueue
    ? generationPortOf({ db, config, queue: deps.jobQueue, storage: deps.storage, metadataBaseUrl })
    : undefined;
  // The metadata of a frozen collection is read from its bundle through the permanence gateway
  // (made below; the documents feed the export, so one of the two is bound late).
  let permanence: PermanenceService | undefined;
  const metadata = createMetadataDocuments(
    bindDb(db, { tokensForMetadata, collectionHeader }),
    metadataBaseUrl,
    deps.metadataCache,
    (collectionId) => fairnessDocument(db, collectionId, fairness, receipts, exact),
    async (root, path) => {
      const file = await permanence!.gateway(root, path);
      if (file.kind !== 'file') throw new AppError('not_found', `${path} of bundle ${root} is a directory`);
      return file.bytes;
    },
    deps.publicBaseUrl ?? metadataBaseUrl,
  );
  const documentsChanged = (collectionId: string) =>
    deps.onTokenChanged ? deps.onTokenChanged(collectionId) : metadata.cache.invalidate(collectionId);
  const fairness = fairSeedsOf(db, config, access, documentsChanged);
  // Exact counts: the deck's provenance is set right after the commitment, before any token (docs/fairness.md).
  const exact = exactRevealOf(db, config, access, (...a) => minting.startDealtArtwork(...a), documentsChanged);
  const committed = {
    ensureCommitted: async (c: CollectionRow) => {
      const row = await fairness.ensureCommitted(c);
      await exact.ensureProvenance(c);
      return row;
    },
    seedFor: fairness.seedFor,
  };
  const receipts = receiptsOf(db, deps.storage);
  const pinTarget = createPinTarget(config, metadataBaseUrl);
  const permanenceServices = permanenceOn({
    db,
    ...(access ? { access } : {}),
    ...(deps.chain ? { chain: deps.chain } : {}),
    ...(deps.storage ? { storage: deps.storage } : {}),
    ...(pinTarget ? { pinTarget } : {}),
    pinTimeoutMs: config.IPFS_PIN_TIMEOUT_MS,
    documents: metadata,
    receipts,
    publicBaseUrl: metadataBaseUrl,
    onFrozen: documentsChanged,
    ...(deps.log ? { log: deps.log } : {}),
  });
  permanence = permanenceServices.permanence;
  const sale = createSaleService({
    getCollection: (id) => getCollection(db, id),
    chain: access,
    ensureSeedCommitted: async (id) => committed.ensureCommitted(await getCollection(db, id)),
  });
  const minting = createMintingService({
    store: mintStore(db),
    chain: access ? { mint: (req) => mintTokens(access, req) } : undefined,
    generation,
    metadataBaseUrl,
    gate: createMintGate({
      store: bindDb(db, {
        isWalletOf,
        takeWalletMints,
        returnWalletMints,
        walletMintCount,
        claimMintPayment,
        releaseMintPayment,
        earlierMintPayment,
      }),
      payments: access ? paymentChainOf(config, access) : undefined,
    }),
    credits: {
      perGeneration: config.CREDITS_PER_GENERATION,
      debit: async (userId, n) => void (await debitCredits(db, userId, n, config.CREDITS_INITIAL_GRANT)),
      refund: async (userId, n) => void (await addCredits(db, userId, n, config.CREDITS_INITIAL_GRANT)),
    },
    onTokenChanged: deps.onTokenChanged ?? ((collectionId, tokenId) => metadata.cache.invalidate(collectionId, tokenId)),
    ...(access ? { fairness: committed } : {}),
  });
  return {
    collections: createCollectionService({
      store: bindDb(db, { createCollection, getCollection, updateCollection, resetCollection, hasExactDeck }),
      contractExists: deps.contractExists,
      defaultBlockchain: blockchainOf(config.NFT_CHAIN_ID),
      expander: deps.conceptExpander ?? createConceptExpander(config),
      ...(deps.storage ? { storage: deps.storage } : {}),
      onDocumentsChanged: (collectionId) =>
        deps.onTokenChanged ? deps.onTokenChanged(collectionId) : metadata.cache.invalidate(collectionId),
    }),
    deploy: deployServiceOf(db, { chainId: config.NFT_CHAIN_ID, metadataBaseUrl, chain: deps.chain }),
    minting,
    fairness,
    exact,
    receipts,
    samples: createSampleService({
      store: bindDb(db, {
        getCollection,
        takeFreeSamples,
        returnFreeSamples,
        allowanceUsage,
        paidSampleCount,
        resumablePayment,
        claimPayment,
        endPaymentLease,
        releasePayment,
        insertSamples,
        listSamples,
        avatarOfUser,
        isWalletOf,
        createDeck,
      }),
      generation,
      payments: access ? paymentChainOf(config, access) : undefined,
      defaultChainId: config.NFT_CHAIN_ID,
      log: deps.log,
    }),
    metadata,
    sale,
    mintPage: mintPageOf(db, access, sale, fairness),
    ...permanenceServices,
    views: createCollectionViews({
      store: bindDb(db, {
        getCollection,
        listCollections,
        tokenPage,
        tokenView,
        traitCounts,
        transfersOf,
        tokenTransactions,
        collectionGasSpent,
      }),
      ...(deps.chain ? { readChain: chainStateReader(deps.chain) } : {}),
      tokenDocument: (collectionId, tokenId) => metadata.token(collectionId, tokenId),
    }),
    idempotency: createIdempotency(
      bindDb(db, {
        insert: insertIdempotencyKey,
        read: readIdempotencyKey,
        finish: finishIdempotencyKey,
        release: releaseIdempotencyKey,
        takeOver: takeOverIdempotencyKey,
        renew: renewIdempotencyKey,
      }),
      { leaseMs: config.IDEMPOTENCY_LEASE_MS },
    ),
    /** Which optional dependencies are present (route plugins answer 503 without them). */
    has: { chain: deps.chain !== undefined, mintingChain: access !== undefined, generation: generation !== undefined },
  };
}

export function repairPortsOf(db: Db, metadataBaseUrl: string, recoverDeploys: () => Promise<{ finished: number; released: number }>) {
  return {
    store: bindDb(db, {
      mintsMissingDecks,
      findTokenDeck,
      createMintedDeck,
      recordMinted,
      releaseDecksOfUnlandedMints,
      unmintDecksOfReorgedMints,
      remintedDecks,
      setMintState,
    }),
    mintedTokensOf,
    recoverDeploys,
    metadataBaseUrl,
  };
}

/** The purchase follower's store (services/sale-purchases.ts) on the database. */
export const purchaseStoreOn = (db: Db): PurchaseStore =>
  bindDb(db, {
    cancelPurchase,
    claimPurchases,
    tryInsertPurchases,
    markScanned,
    backOffPurchase,
    markChoicesInvalid,
    markStarted,
    reorgedPurchases,
    unclaimedMintTxs,
    getCollection,
  });
