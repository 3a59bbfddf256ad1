/**
 * Freezing (docs/permanence.md "Freezing"): POST /nft/collections/:id/freeze points a contract's
 * baseURI and contractURI at the collection's newest ready export and calls freezeMetadata(), so
 * the metadata can never change again; then records the collection frozen. One request at a time
 * per collection, across replicas (a lease in the database): two requests interleaving their sends
 * could otherwise leave the chain frozen at one bundle and the record at another.
 * Authorization: `collection.freeze` (owner or operator) from domain/policy.ts.
 */
import { randomUUID } from 'node:crypto';
import { AppError, conflict } from '../domain/errors.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import type { ExportCollection, ExportRecord } from './permanence.ts';
import { closedReason, type SaleClosedDeps, saleClosedDeps } from './sale-closed.ts';

/**
 * The calls that freeze a contract's metadata at a bundle, in order: the supply fixed at the
 * tokens the bundle holds (only when maxSupply is above it), both URIs, then the freeze.
 */
export type FreezeAction = 'setMaxSupply' | 'setBaseURI' | 'setContractURI' | 'freezeMetadata';

/**
 * The contract side of freezing: reads, and the platform wallet's admin actions through the
 * chain-admin send path (services/chain-admin.ts runPlatformAdminAction: simulate, tx sender, receipt).
 */
export interface FreezeChain {
  owner(chainId: number, address: string): Promise<string>;
  platformWallet(chainId: number): string;
  metadataFrozen(chainId: number, address: string): Promise<boolean>;
  tokenURI(chainId: number, address: string, tokenId: number): Promise<string>;
  contractURI(chainId: number, address: string): Promise<string>;
  /** totalSupply() and maxSupply(). */
  supply(chainId: number, address: string): Promise<{ total: number; max: number }>;
  send(chainId: number, address: string, action: FreezeAction, value: string | true): Promise<{ txHash: string }>;
  /** The calldata of an action, for the owner to send (eth_sendTransaction). */
  encode(action: FreezeAction, value: string | true): string;
}

export interface FreezeStore {
  getCollection(id: string): Promise<ExportCollection>;
  mintedTokenIds(collectionId: string): Promise<number[]>;
  latestExport(collectionId: string): Promise<ExportRecord | undefined>;
  readyExportByCid(cid: string): Promise<ExportRecord | undefined>;
  /** The newest ready export (freezing points the contract at it). */
  latestReadyExport(collectionId: string): Promise<ExportRecord | undefined>;
  /** Marks the collection frozen with its `collection.frozen` event, once; undefined when it already was (db/exports.ts). */
  recordFrozen(w: {
    collectionId: string;
    rootCid: string;
    baseUri: string;
    contractUri: string;
    txHash: string | null;
  }): Promise<{ frozen_at: Date | null } | undefined>;
  /** Takes the collection's freeze lease for `holder` (false while another holds it); db/leases.ts. */
  claimFreeze(collectionId: string, holder: string, ttlMs: number): Promise<boolean>;
  releaseFreeze(collectionId: string, holder: string): Promise<void>;
}

export interface FreezeDeps extends Partial<SaleClosedDeps> {
  store: FreezeStore;
  /** Freezing's chain side; absent without a chain (503). */
  freezeChain?: FreezeChain;
  /** With a pin target configured, only a pinned bundle is frozen. */
  pinRequired?: boolean;
  /** The collection's documents changed (cached ones are dropped, on every replica). */
  onFrozen?: (collectionId: string) => void;
  /** How long one request may hold the collection's freeze (its receipts); default 10 min. */
  claimTtlMs?: number;
}

/** What POST /nft/collections/:id/freeze answers. */
export interface FreezeView {
  collection_id: string;
  chain_id: number;
  contract_address: string;
  root_cid: string;
  base_uri: string;
  contract_uri: string;
  frozen_at: string | null;
  /** freezeMetadata()'s transaction when the platform sent it; null when the owner did. */
  tx_hash: string | null;
  /** The platform's transactions of this request, in order; empty when the chain was already frozen. */
  transactions: Array<{ action: FreezeAction; tx_hash: string }>;
}

/** The URIs a contract frozen at bundle `root` holds (docs/permanence.md "Freezing"). */
export const frozenUris = (root: string) => ({ baseUri: `ipfs://${root}/metadata/`, contractUri: `ipfs://${root}/contract.json` });

const FREEZE_SIGNATURES: Record<FreezeAction, string> = {
  setMaxSupply: 'setMaxSupply(uint256)',
  setBaseURI: 'setBaseURI(string)',
  setContractURI: 'setContractURI(string)',
  freezeMetadata: 'freezeMetadata()',
};

export function createFreezeService(deps: FreezeDeps) {
  const { store } = deps;
  const saleDeps = saleClosedDeps(deps);
  const claimTtlMs = deps.claimTtlMs ?? 10 * 60_000;

  async function freezeClaimed(c: ExportCollection): Promise<FreezeView> {
    if (c.frozen_at) {
      throw conflict(
        `collection ${c.id} is already frozen at ipfs://${c.frozen_root_cid}/ (since ${c.frozen_at.toISOString()}): its metadata can never change again`,
        { code: 'ALREADY_FROZEN', root_cid: c.frozen_root_cid },
      );
    }
    if (!c.contract_address || c.chain_id === null) {
      throw conflict(`collection ${c.id} is not deployed: there is no contract to freeze`, { code: 'NOT_DEPLOYED' });
    }
    const ch = deps.freezeChain;
    if (!ch) throw new AppError('unavailable', 'freezing needs a chain: this backend has none configured');
    const chainId = c.chain_id;
    const address = c.contract_address;
    const read = async <T>(what: string, fn: () => Promise<T>) => {
      try {
        return await fn();
      } catch (err) {
        throw new AppError('upstream', `reading ${what} of ${address}: ${(err as Error).message.split('\n')[0]}`);
      }
    };
    const record = async (root: string, txHash: string | null, transactions: FreezeView['transactions']): Promise<FreezeView> => {
      const { baseUri, contractUri } = frozenUris(root);
      const row = await store.recordFrozen({ collectionId: c.id, rootCid: root, baseUri, contractUri, txHash });
      if (!row) throw conflict(`collection ${c.id} was frozen meanwhile by another request`, { code: 'ALREADY_FROZEN', root_cid: root });
      deps.onFrozen?.(c.id);
      return {
        collection_id: c.id,
        chain_id: chainId,
        contract_address: address,
        root_cid: root,
        base_uri: baseUri,
        contract_uri: contractUri,
        frozen_at: row.frozen_at ? row.frozen_at.toISOString() : null,
        tx_hash: txHash,
        transactions,
      };
    };

    if (await read('metadataFrozen()', () => ch.metadataFrozen(chainId, address))) {
      // Frozen on chain but not here: the owner sent the calls, or a request stopped after
      // freezeMetadata() was mined. Recorded when the chain points at a ready export of this
      // collection — whichever one it is (a newer export may exist since).
      const [first] = await store.mintedTokenIds(c.id);
      const [tokenUri, onChainContractUri] = await Promise.all([
        first === undefined ? Promise.resolve(null) : read(`tokenURI(${first})`, () => ch.tokenURI(chainId, address, first)),
        read('contractURI()', () => ch.contractURI(chainId, address)),
      ]);
      const named = /^ipfs:\/\/([^/]+)\/contract\.json$/.exec(onChainContractUri)?.[1];
      const bundle = named ? await store.readyExportByCid(named) : undefined;
      const ours = bundle && bundle.collection_id === c.id && bundle.root_cid === named ? named : undefined;
      const expectedToken = ours && first !== undefined ? `${frozenUris(ours).baseUri}${first}` : null;
      if (!ours || tokenUri !== expectedToken) {
        throw conflict(
          `the metadata of ${address} is already frozen on chain, but not at a bundle of this collection: ` +
            `tokenURI(${first}) is ${tokenUri}, contractURI() is ${onChainContractUri}; it can never change again`,
          { code: 'ALREADY_FROZEN', token_uri: tokenUri, contract_uri: onChainContractUri },
        );
      }
      return record(ours, null, []);
    }

    const exp = await store.latestReadyExport(c.id);
    if (!exp?.root_cid) {
      const newest = await store.latestExport(c.id);
      throw conflict(
        `collection ${c.id} has no ready export${newest ? ` (its newest export is ${newest.status}${newest.error ? `: ${newest.error}` : ''})` : ''}: ` +
          `export it first (POST /nft/collections/${c.id}/export) and freeze once GET …/export says ready`,
        { code: 'NOT_EXPORTED' },
      );
    }
    await closedReason(saleDeps, c);
    // A bundle made before later mints would freeze their tokens at paths it does not hold.
    const minted = await store.mintedTokenIds(c.id);
    if (exp.token_count !== minted.length) {
      throw conflict(
        `the newest export holds ${exp.token_count ?? 0} tokens but ${minted.length} are minted: export again ` +
          `(POST /nft/collections/${c.id}/export) and freeze once it is ready`,
        { code: 'EXPORT_STALE' },
      );
    }
    // With a pin target, the contract points only at a bundle an IPFS service holds (docs/permanence.md "Freezing").
    if (deps.pinRequired && exp.pin_status !== 'pinned') {
      throw conflict(
        `the export ${exp.root_cid} is not pinned yet (pin_status ${exp.pin_status}${exp.pin_error ? `: ${exp.pin_error}` : ''}): ` +
          `freeze once GET …/export says pinned (POST …/export/pin retries a failed pin)`,
        { code: 'NOT_PINNED' },
      );
    }
    const root = exp.root_cid;
    const { baseUri, contractUri } = frozenUris(root);

    const owner = await read('owner()', () => ch.owner(chainId, address));
    const wallet = ch.platformWallet(chainId);
    // A token minted after the freeze would have a tokenURI in the bundle that the bundle does not
    // hold: the supply is fixed first (the contract refuses setMaxSupply once frozen). A purchase
    // landing before it makes setMaxSupply(total) revert (below the supply), and nothing is frozen.
    const supply = await read('totalSupply() and maxSupply()', () => ch.supply(chainId, address));
    if (supply.total !== exp.token_count) {
      throw conflict(
        `the contract has minted ${supply.total} tokens but the export holds ${exp.token_count ?? 0}: ` +
          `export again once every token is recorded (POST /nft/collections/${c.id}/export) and freeze once it is ready`,
        { code: 'EXPORT_STALE' },
      );
    }
    const steps: Array<[FreezeAction, string | true]> = [
      ...(supply.max > supply.total ? [['setMaxSupply', String(supply.total)] as [FreezeAction, string]] : []),
      ['setBaseURI', baseUri],
      ['setContractURI', contractUri],
      ['freezeMetadata', true],
    ];
    if (owner.toLowerCase() !== wallet.toLowerCase()) {
      // The creator signs them, in this order, from the owner wallet (eth_sendTransaction).
      throw new AppError(
        'conflict',
        `collection ${address} is owned by ${owner}, not by the platform wallet ${wallet}: the owner sends the ${steps.length} calls in "calls", in order, ` +
          `from their own wallet; then POST this again to record the freeze (docs/permanence.md "Freezing")`,
        {
          code: 'OWNER_MUST_SIGN',
          owner,
          platformWallet: wallet,
          root_cid: root,
          calls: steps.map(([action, value]) => ({
            chainId,
            from: owner,
            to: address,
            data: ch.encode(action, value),
            value: '0x0',
            function: FREEZE_SIGNATURES[action],
            description: {
              setMaxSupply: `fix the supply at the ${supply.total} tokens the bundle holds: no token can be minted after the freeze`,
              setBaseURI: `point every token at the bundle: ${baseUri}<tokenId>`,
              setContractURI: `point the collection document at the bundle: ${contractUri}`,
              freezeMetadata: 'freeze both URIs for good (one BatchMetadataUpdate over every token)',
            }[action],
          })),
        },
      );
    }
    const transactions: FreezeView['transactions'] = [];
    for (const [action, value] of steps) {
      try {
        const { txHash } = await ch.send(chainId, address, action, value);
        transactions.push({ action, tx_hash: txHash });
      } catch (err) {
        // A concurrent request froze it between the read above and this send.
        const revert = err instanceof AppError ? (err.extra?.revert as { name?: string } | undefined) : undefined;
        if (revert?.name === 'MetadataIsFrozen') {
          throw conflict(`the metadata of ${address} was frozen meanwhile (another request): ${err instanceof Error ? err.message : ''}`, {
            code: 'ALREADY_FROZEN',
            root_cid: root,
          });
        }
        throw err;
      }
    }
    return record(root, transactions.at(-1)!.tx_hash, transactions);
  }

  return {
    /**
     * POST /nft/collections/:id/freeze (docs/permanence.md "Freezing"): points the contract's
     * baseURI and contractURI at the newest ready export and calls freezeMetadata(), waiting for
     * each receipt; then records the collection frozen (with its `collection.frozen` event). A
     * creator-owned contract gets 409 OWNER_MUST_SIGN with the calls; once the chain shows
     * the contract frozen at this bundle, a later request records it.
     */
    async freeze(caller: Caller, collectionId: string): Promise<FreezeView> {
      const c = await store.getCollection(collectionId);
      authorize(caller, 'collection.freeze', { ownerId: c.user_id });
      // One request at a time per collection (any replica); a holder that dies frees it after claimTtlMs.
      const holder = randomUUID();
      if (!(await store.claimFreeze(c.id, holder, claimTtlMs))) {
        throw conflict(`collection ${c.id} is being frozen by another request: ask again once it has finished`, {
          code: 'FREEZE_IN_PROGRESS',
        });
      }
      try {
        // Read again under the claim: a request that held it may have frozen the collection meanwhile.
        return await freezeClaimed(await store.getCollection(c.id));
      } finally {
        await store.releaseFreeze(c.id, holder).catch((err: unknown) => deps.log?.(err, `releasing the freeze of ${c.id} failed`));
      }
    },
  };
}

export type FreezeService = ReturnType<typeof createFreezeService>;
