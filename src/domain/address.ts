/**
 * Addresses as people type them (docs/security.md "Addresses"): all lower case, all upper case,
 * or mixed case that is a correct EIP-55 checksum. A mixed-case address whose checksum is wrong
 * is almost always a mistyped digit (a token minted there is lost), so it is refused, and the
 * message shows the checksummed form of what was typed for the person to compare.
 */
import { getAddress } from 'viem';

export const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
export const ADDRESS_FORM = 'expected a 0x-prefixed 20-byte hex address';

/** What is wrong with `text` as an address, in words; null when it is one. */
export function addressProblem(text: string): string | null {
  if (!ADDRESS_RE.test(text)) return ADDRESS_FORM;
  return checksumProblem(text);
}

/** For a well-formed address: null, or the checksum mismatch with the address it would be. */
export function checksumProblem(text: string): string | null {
  const digits = text.slice(2);
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return null;
  const checksummed = getAddress(`0x${digits.toLowerCase()}`);
  return checksummed === text ? null : `checksum mismatch: did you mean ${checksummed}?`;
}

/** Whether `text` is an address a person may have meant exactly (see addressProblem). */
export const isAcceptedAddress = (text: string): boolean => addressProblem(text) === null;
