/**
 * Public metadata documents (docs/api/nft.md §2.11): ERC-721 token metadata and ERC-7572 collection
 * metadata, built from database rows by pure functions. The cache policy lives here too, so the
 * routes and their tests agree on it (docs/minting.md).
 */
import { createHash } from 'node:crypto';

export interface Attribute {
  trait_type: string;
  value: string;
}

export interface TokenDocument {
  name: string;
  description: string;
  image: string;
  external_url: string;
  attributes: Attribute[];
  /** How the artwork was made: the fair seed, its inputs and the receipt's URL (docs/fairness.md). */
  generation?: Record<string, unknown>;
  /** Exact counts only: false until the reveal deals the token its traits. */
  revealed?: boolean;
}

export interface CollectionDocument {
  name: string;
  description: string;
  image: string;
  external_link: string;
}

export interface TokenSource {
  collection: { id: string; title: string; description: string; cover_image_url: string | null; exact?: boolean };
  tokenId: number;
  /** The cover output of the token's deck, when there is one. */
  output: {
    status: string;
    url: string | null;
    token_metadata: unknown;
    input_metadata: unknown;
  } | null;
  metadataBaseUrl: string;
}

export const tokenUrl = (metadataBaseUrl: string, collectionId: string, tokenId: number | string) =>
  `${metadataBaseUrl.replace(/\/+$/, '')}/collections/${collectionId}/tokens/${tokenId}`;

export const collectionUrl = (metadataBaseUrl: string, collectionId: string) =>
  `${metadataBaseUrl.replace(/\/+$/, '')}/collections/${collectionId}/metadata.json`;

/** The collection's public mint page (docs/mint-page.md), on the backend's public base: every collection has one. */
export const mintPageUrl = (publicBaseUrl: string, collectionId: string) => `${publicBaseUrl.replace(/\/+$/, '')}/mint/${collectionId}`;

function isAttribute(a: unknown): a is Attribute {
  return (
    typeof a === 'object' && a !== null && typeof (a as Attribute).trait_type === 'string' && typeof (a as Attribute).value === 'string'
  );
}

/**
 * Traits of a token: the ones recorded at mint time in token_metadata.attributes, else the ones the
 * generation resolved (outputs.input_metadata.traits). Both come only from is_feature variables.
 */
export function attributesOf(output: TokenSource['output']): Attribute[] {
  if (!output) return [];
  const fromToken = (output.token_metadata as { attributes?: unknown } | null)?.attributes;
  if (Array.isArray(fromToken)) return fromToken.filter(isAttribute).map((a) => ({ trait_type: a.trait_type, value: a.value }));
  const fromInput = (output.input_metadata as { traits?: unknown } | null)?.traits;
  if (Array.isArray(fromInput)) return fromInput.filter(isAttribute).map((a) => ({ trait_type: a.trait_type, value: a.value }));
  return [];
}

/** True when the artwork is final: the cover output completed with an image. */
export const isFinal = (output: TokenSource['output']) => output?.status === 'completed' && !!output.url;

/**
 * The ERC-721 document. `image` is the cover output's image once completed; before that the
 * collection's cover image (or an empty string), so wallets show something and refetch later.
 */
export function tokenDocument(src: TokenSource): TokenDocument {
  const { collection, tokenId, output } = src;
  return {
    name: `${collection.title} #${tokenId}`,
    description: collection.description,
    image: isFinal(output) ? output!.url! : (collection.cover_image_url ?? ''),
    external_url: tokenUrl(src.metadataBaseUrl, collection.id, tokenId),
    attributes: attributesOf(output),
    // Exact counts: no artwork before the reveal deals the token its traits (docs/fairness.md "Exact counts").
    ...(collection.exact ? { revealed: output !== null } : {}),
    ...generationOf(src),
  };
}

/** The `generation` object of a token whose artwork has a fair seed (docs/fairness.md "Receipts"). */
function generationOf(src: TokenSource): { generation?: Record<string, unknown> } {
  const fair = (src.output?.input_metadata as { fair_seed?: Record<string, unknown> } | null)?.fair_seed;
  if (!fair || typeof fair !== 'object') return {};
  return {
    generation: {
      seed: fair.seed,
      seed_inputs: {
        commitment: fair.commitment,
        chain_id: fair.chain_id,
        collection: fair.collection,
        token_id: fair.token_id,
        block_hash: fair.block_hash,
        block_number: fair.block_number,
      },
      receipt: `${tokenUrl(src.metadataBaseUrl, src.collection.id, src.tokenId)}/receipt`,
    },
  };
}

/**
 * The ERC-7572 document. `external_link` (the collection's web page) is its public mint page, which
 * every collection has (before deployment and after the sale too: it says why nothing is on sale).
 */
export function collectionDocument(
  collection: { id: string; title: string; description: string; cover_image_url: string | null },
  publicBaseUrl: string,
): CollectionDocument {
  return {
    name: collection.title,
    description: collection.description,
    image: collection.cover_image_url ?? '',
    external_link: mintPageUrl(publicBaseUrl, collection.id),
  };
}

/**
 * Token metadata stored on the output at mint time (spec §4.2 mint procedure step 6): the full
 * ERC-721 document. `image` is the collection's cover (or '') until the artwork completes; the
 * completion (db/job-events.ts) and a late cover link (db/minting.ts) write the artwork's URL.
 */
export function mintTokenMetadata(src: Omit<TokenSource, 'output'> & { attributes: Attribute[] }) {
  return {
    name: `${src.collection.title} #${src.tokenId}`,
    description: src.collection.description,
    image: src.collection.cover_image_url ?? '',
    external_url: tokenUrl(src.metadataBaseUrl, src.collection.id, src.tokenId),
    attributes: src.attributes,
  };
}

/**
 * Final artwork: 5 minutes, then revalidated (ETag → 304). A token can be regenerated, so a day
 * (as it was) served a replaced picture for a day after its MetadataUpdate (docs/minting.md "Metadata documents and cache policy").
 */
export const CACHE_FINAL = 'public, max-age=300, stale-while-revalidate=3600';
export const CACHE_PENDING = 'public, max-age=10, must-revalidate';

export interface Rendered {
  body: string;
  etag: string;
  cacheControl: string;
}

/** A frozen collection's documents, from its content-addressed bundle: they never change. */
export const CACHE_FROZEN = 'public, max-age=31536000, immutable';

/** Bytes already serialized (a bundle's file), with the same kind of ETag as render(). */
export function renderBytes(body: string, cacheControl: string): Rendered {
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"`, cacheControl };
}

/** Serialized once; the ETag is a hash of the exact bytes served. */
export function render(doc: object, final: boolean): Rendered {
  const body = JSON.stringify(doc);
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  return { body, etag, cacheControl: final ? CACHE_FINAL : CACHE_PENDING };
}

/** If-None-Match matching (a list, weak validators, or `*`). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
