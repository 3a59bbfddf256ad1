/**
 * Permanence (docs/permanence.md): when a collection may be exported as a content-addressed
 * bundle, and what the bundle's files are. Pure: the service gathers the facts and the bytes.
 */

/** What decides whether a collection's sale is closed. */
export interface SaleFacts {
  editions: number;
  tokens_minted: number;
  /** The record's deployment state (`collections.mint_status`). */
  mint_status: string;
  deployed: boolean;
  /** The contract's `mintActive()`; undefined when the chain could not be asked. */
  mintActive?: boolean;
  /** The on-chain sale's end (unix seconds, 0 = none); undefined when there is no sale or it could not be read. */
  saleEnd?: bigint;
  /**
   * The contract's totalSupply() and maxSupply(); undefined when the chain could not be asked.
   * When known they decide "sold out", not the record: an on-chain purchase mints up to maxSupply
   * whatever the record's editions say.
   */
  chainSupply?: { total: number; max: number };
  /** Unix seconds now. */
  now: number;
}

export type ClosedReason = 'sold_out' | 'minting_off' | 'sale_ended';

/** Why the sale is closed, or `{open: why}` naming every reason it still is. */
export function saleClosed(f: SaleFacts): { closed: ClosedReason } | { open: string } {
  if (f.chainSupply) {
    if (f.chainSupply.total > 0 && f.chainSupply.total >= f.chainSupply.max) return { closed: 'sold_out' };
  } else if (f.editions > 0 && f.tokens_minted >= f.editions) return { closed: 'sold_out' };
  if (f.mint_status === 'paused' || f.mint_status === 'completed') return { closed: 'minting_off' };
  if (f.deployed && f.mintActive === false) return { closed: 'minting_off' };
  if (f.saleEnd !== undefined && f.saleEnd > 0n && f.saleEnd <= BigInt(f.now)) return { closed: 'sale_ended' };
  const why = [
    f.chainSupply
      ? `the contract has minted ${f.chainSupply.total} of its maxSupply ${f.chainSupply.max}`
      : `${f.tokens_minted} of ${f.editions} editions are minted`,
  ];
  if (!f.deployed) why.push('the collection is not deployed');
  else if (f.mintActive === undefined) why.push("the contract's mintActive() could not be read");
  else why.push('minting is on (mintActive() is true)');
  if (f.saleEnd === undefined) why.push('no on-chain sale end was read');
  else if (f.saleEnd === 0n) why.push('the on-chain sale has no end');
  else why.push(`the on-chain sale ends at ${new Date(Number(f.saleEnd) * 1000).toISOString()}`);
  return { open: `the sale of this collection is still open: ${why.join('; ')}` };
}

/** Extensions the bundle gives images, by content type (else `bin`). */
const IMAGE_EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/svg+xml': 'svg',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
};

export function extensionFor(contentType: string, key?: string): string {
  const fromType = IMAGE_EXTENSIONS[contentType.split(';')[0]!.trim().toLowerCase()];
  if (fromType) return fromType;
  const fromKey = key ? /\.([A-Za-z0-9]{1,8})$/.exec(key)?.[1]?.toLowerCase() : undefined;
  return fromKey ?? 'bin';
}

/** The bundle's paths (docs/permanence.md "Layout"). */
export const bundlePaths = {
  image: (tokenId: number, ext: string) => `images/${tokenId}.${ext}`,
  metadata: (tokenId: number) => `metadata/${tokenId}`,
  receipt: (tokenId: number) => `receipts/${tokenId}.json`,
  contract: 'contract.json',
  index: 'index.html',
  viewerJs: 'viewer.js',
  viewerCss: 'viewer.css',
  data: 'bundle-data.js',
} as const;

/**
 * The token's document as the bundle holds it: the document the backend serves, with `image`
 * pointing at the images directory by its own CID (`ipfs://<imagesCid>/<tokenId>.<ext>`), which
 * the metadata can name before the root exists (the root depends on the metadata).
 */
export function bundledTokenDocument(served: string, imagesCid: string, tokenId: number, ext: string): string {
  const doc = JSON.parse(served) as Record<string, unknown>;
  return JSON.stringify({ ...doc, image: `ipfs://${imagesCid}/${tokenId}.${ext}` });
}

/**
 * What the static viewer shows without fetching anything (so it opens from a plain folder too).
 * No time of export: the bundle is a function of the collection's content, so exporting the same
 * content again gives the same root CID.
 */
export interface ViewerData {
  collection: { name: string; description: string; chain_id: number | null; address: string | null };
  tokens: Array<{ token_id: number; name: string; image: string; attributes: unknown[]; metadata: string; receipt: string }>;
}
