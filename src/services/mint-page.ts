/**
 * The public mint page's reads (docs/mint-page.md): one document a collector's browser polls —
 * the collection's face, its on-chain sale, supply, what a buyer may choose, the fairness
 * commitment and the newest mints — and an allowlist proof for one wallet. No caller: everything
 * here is public already (contractURI, token documents, the contract's own views).
 *
 * The chain half (sale, supply) is cached a few seconds per collection, so a crowd polling the page
 * costs the node a handful of reads, not one per visitor.
 */
import { getAddress } from 'viem';
import { notFound } from '../domain/errors.ts';
import { REF_IMAGE_NAMES, SOCIAL_PFP, normalizeGenerationData, type Variable } from '../domain/generation-data.ts';
import { merkleProof, merkleRoot } from '../domain/mint-policy.ts';

export interface MintPageCollection {
  id: string;
  title: string;
  description: string;
  cover_image_url: string | null;
  data: unknown;
  editions: number;
  max_supply: number | null;
  tokens_minted: number;
  chain_id: number | null;
  contract_address: string | null;
  mint_allowlist: string[] | null;
}

export interface MintPageSale {
  configured: boolean;
  paused: boolean;
  currency: string;
  price: string;
  start: string | null;
  end: string | null;
  max_per_wallet: number | null;
  merkle_root: string | null;
}

export interface MintPageToken {
  token_id: number;
  image: string | null;
  minted_at: string | null;
  owner: string | null;
  traits: Array<{ trait_type: string; value: string | number }>;
}

export interface MintPagePorts {
  getCollection(id: string): Promise<MintPageCollection>;
  /** Collection ids deployed at (chainId, address), newest first. */
  collectionsAt(chainId: number, address: string): Promise<string[]>;
  /** The contract's sale; throws (no chain, not deployed, no sale facet) with the reason. */
  readSale?(collectionId: string): Promise<MintPageSale>;
  /** totalSupply / maxSupply as the contract says. */
  readSupply?(chainId: number, address: string): Promise<{ minted: string; max: string }>;
  /** Seed commitment and, after the reveal, the secret (docs/fairness.md); null before the commit. */
  fairness(c: MintPageCollection): Promise<{ commitment: string; revealed_secret: string | null } | null>;
  latestMints(collectionId: string, limit: number): Promise<MintPageToken[]>;
  /** Milliseconds the chain half is cached; default 3000. */
  cacheMs?: number;
  now?: () => number;
}

export const LATEST_MINTS = 12;
/**
 * Not offered on the page: the creator's reference images (never a buyer's), and `social_pfp`, the
 * minter's picture (an image URL from a social sign-in; the page has no picture to give).
 */
const NOT_OFFERED: ReadonlySet<string> = new Set([...REF_IMAGE_NAMES, SOCIAL_PFP]);

/** The variables a buyer may set in `purchase(..., data)` (domain/minter-choices.ts): presets or free text. */
export function buyerChoices(data: unknown) {
  let variables: Variable[] = [];
  try {
    variables = normalizeGenerationData(data).variables;
  } catch {
    /* a record with unreadable data offers no choices */
  }
  return variables
    .filter((v) => (v.is_selectable || v.is_user_customizable) && !NOT_OFFERED.has(v.name))
    .map((v) => ({
      name: v.name,
      display_name: v.feature_name || v.name,
      kind: v.is_selectable ? ('preset' as const) : ('custom' as const),
      presets: v.value.map((o) => ({ value: o.value, display_name: o.display_name || o.value })),
    }));
}

export function createMintPageService(ports: MintPagePorts) {
  const cacheMs = ports.cacheMs ?? 3000;
  const now = ports.now ?? Date.now;
  const chainCache = new Map<string, { at: number; value: Promise<ChainHalf> }>();

  interface ChainHalf {
    sale: MintPageSale | null;
    sale_error: string | null;
    supply: { minted: string; max: string } | null;
  }

  async function readChainHalf(c: MintPageCollection): Promise<ChainHalf> {
    let sale: MintPageSale | null = null;
    let saleError: string | null = null;
    if (!ports.readSale) saleError = 'this platform has no chain configured';
    else if (!c.contract_address || c.chain_id === null) saleError = 'the collection is not deployed yet';
    else {
      try {
        sale = await ports.readSale(c.id);
        if (!sale.configured) saleError = 'the sale is not configured yet';
      } catch (err) {
        saleError = (err as Error).message.split('\n')[0]!;
      }
    }
    let supply: ChainHalf['supply'] = null;
    if (ports.readSupply && c.contract_address && c.chain_id !== null) {
      supply = await ports.readSupply(c.chain_id, c.contract_address).catch(() => null);
    }
    return { sale, sale_error: saleError, supply };
  }

  function chainHalf(c: MintPageCollection): Promise<ChainHalf> {
    const key = `${c.id}:${c.chain_id}:${c.contract_address}`;
    const hit = chainCache.get(key);
    if (hit && now() - hit.at < cacheMs) return hit.value;
    const value = readChainHalf(c);
    chainCache.set(key, { at: now(), value });
    if (chainCache.size > 1000) chainCache.delete(chainCache.keys().next().value!);
    return value;
  }

  return {
    async page(collectionId: string) {
      const c = await ports.getCollection(collectionId);
      const [chain, fairness, latest] = await Promise.all([
        chainHalf(c),
        ports.fairness(c).catch(() => null),
        ports.latestMints(c.id, LATEST_MINTS),
      ]);
      const max = chain.supply ? Number(chain.supply.max) : (c.max_supply ?? c.editions);
      return {
        id: c.id,
        title: c.title,
        description: c.description,
        cover_image_url: c.cover_image_url,
        chain_id: c.chain_id,
        contract_address: c.contract_address ? getAddress(c.contract_address) : null,
        minted: chain.supply ? Number(chain.supply.minted) : c.tokens_minted,
        max_supply: max,
        sale: chain.sale,
        sale_error: chain.sale_error,
        choices: buyerChoices(c.data),
        fairness: fairness
          ? {
              committed: true,
              commitment: fairness.commitment,
              revealed: fairness.revealed_secret !== null,
              secret: fairness.revealed_secret,
            }
          : { committed: false, commitment: null, revealed: false, secret: null },
        latest_mints: latest,
      };
    },

    /** Throws 404 for an unknown collection (the page's own route checks before sending HTML). */
    async exists(collectionId: string) {
      await ports.getCollection(collectionId);
    },

    /** The newest collection deployed at this contract (404 when none is). */
    async idAt(chainId: number, address: string) {
      const [id] = await ports.collectionsAt(chainId, address);
      if (!id) throw notFound(`collection at ${getAddress(address)} on chain ${chainId}`);
      return id;
    },

    /**
     * Whether `address` may buy and its Merkle proof. The proof comes from the address list the
     * collection holds (`mint_allowlist`); the contract checks it against the sale's root, so a
     * list whose root is not the sale's is said so (`matches_sale: false`).
     */
    async allowlistProof(collectionId: string, address: string) {
      const c = await ports.getCollection(collectionId);
      const { sale } = await chainHalf(c);
      const wallet = getAddress(address);
      const root = sale?.merkle_root ?? null;
      const list = c.mint_allowlist && c.mint_allowlist.length > 0 ? c.mint_allowlist : null;
      const listRoot = list ? merkleRoot(list) : null;
      const matches = root === null || listRoot === null ? null : root.toLowerCase() === listRoot.toLowerCase();
      const base = { address: wallet, merkle_root: root, list_root: listRoot, matches_sale: matches };
      if (sale && root === null) return { ...base, allowed: true, proof: [], reason: 'the sale has no allowlist: anyone may buy' };
      if (!list) {
        return root === null
          ? { ...base, allowed: true, proof: [], reason: 'no allowlist' }
          : { ...base, allowed: false, proof: [], reason: 'the sale has an allowlist whose addresses this platform does not hold' };
      }
      const listed = list.some((a) => a.toLowerCase() === wallet.toLowerCase());
      if (!listed) return { ...base, allowed: false, proof: [], reason: `${wallet} is not on the allowlist` };
      const proof = merkleProof(list, wallet);
      if (matches === false) {
        return { ...base, allowed: false, proof, reason: "the collection's address list does not match the sale's Merkle root" };
      }
      return { ...base, allowed: true, proof, reason: `${wallet} is on the allowlist` };
    },
  };
}

export type MintPageService = ReturnType<typeof createMintPageService>;
