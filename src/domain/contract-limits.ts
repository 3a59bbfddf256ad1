/**
 * What a collection contract accepts (docs/contracts.md "Parameters and defaults", "URI limits"),
 * checked where a request is parsed so nothing out of range reaches a transaction. The contracts
 * check the same bounds (contracts/src/DiamondFactory.sol, contracts/src/libraries/LibStorage.sol).
 */

/** maxSupply (and setMaxSupply): the next token id, maxSupply + 1, is kept in 40 bits. */
export const MAX_CONTRACT_SUPPLY = 2 ** 40 - 2;
/** Name and symbol: 1–255 bytes of UTF-8 (one length byte each in the collection's code). */
export const MAX_NAME_BYTES = 255;
export const MAX_SYMBOL_BYTES = 255;
/** Royalty in basis points: at most 100%. */
export const MAX_ROYALTY_BPS = 10_000;
/**
 * One URI (baseURI, contractURI, setBaseURI, setContractURI), in bytes of UTF-8. The creation URIs
 * are stored in the collection's code, which EIP-170 caps at 24,576 bytes: a 210-byte proxy and
 * header, name, symbol and both URIs. With name and symbol at 255 bytes each, two URIs of this
 * size fill the code exactly: (24,576 - 210 - 255 - 255) / 2 = 11,928 (measured: bench/uri-limit.ts).
 */
export const MAX_URI_BYTES = 11_928;

/** Bytes of `s` in UTF-8 (what the contract counts). */
export const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;
