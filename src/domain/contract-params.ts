/**
 * contractParams (docs/api/nft.md §2.4): the deploy form's defaults, derived from a collection.
 * Name and symbol rules are documented in docs/collections.md.
 */

export const MAX_NAME_LENGTH = 64;
export const MAX_SYMBOL_LENGTH = 8;

/** Latin-1 and common letters folded to ASCII; everything else that is not printable ASCII dropped. */
export function toAscii(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[Ææ]/g, (c) => (c === 'Æ' ? 'AE' : 'ae'))
    .replace(/[Øø]/g, (c) => (c === 'Ø' ? 'O' : 'o'))
    .replace(/[^\x20-\x7e]/g, ' ');
}

export function deriveName(title: string): string {
  const name = toAscii(title).replace(/\s+/g, ' ').trim().slice(0, MAX_NAME_LENGTH).trim();
  return name || 'Atelier Collection';
}

/**
 * Initials of the words when there are at least three, else the first letters and digits of the
 * title; uppercase A–Z and 0–9 only, 3 to 8 characters, `ATLR` when nothing usable is left.
 */
export function deriveSymbol(title: string): string {
  const words = toAscii(title)
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);
  if (words.length === 0) return 'ATLR';
  const initials = words.map((w) => w[0]).join('');
  const symbol = initials.length >= 3 ? initials : words.join('');
  return symbol.slice(0, MAX_SYMBOL_LENGTH).padEnd(3, 'X');
}

export interface ContractParams {
  name: string;
  symbol: string;
  baseURI: string;
  contractURI: string;
  maxSupply: number;
}

export function metadataUrls(metadataBaseUrl: string, collectionId: string) {
  const base = metadataBaseUrl.replace(/\/+$/, '');
  return {
    baseURI: `${base}/collections/${collectionId}/tokens/`,
    contractURI: `${base}/collections/${collectionId}/metadata.json`,
  };
}

export function deriveContractParams(collection: { id: string; title: string; editions: number }, metadataBaseUrl: string): ContractParams {
  return {
    name: deriveName(collection.title),
    symbol: deriveSymbol(collection.title),
    ...metadataUrls(metadataBaseUrl, collection.id),
    maxSupply: collection.editions,
  };
}
