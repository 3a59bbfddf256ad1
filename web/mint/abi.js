// Hand-made ABI encoding for the calls the mint page makes (docs/mint-page.md): the sale's
// purchase(address,uint256,bytes32[],bytes), an ERC-20's approve(address,uint256), and the
// ERC-20 reads decimals(), symbol() and allowance(address,address) with their answers decoded.
// Fixed signatures, so a few lines instead of a bundled encoder; test/mint-page.test.ts compares
// every output with viem's encodeFunctionData / decodeFunctionResult.

export const PURCHASE_SELECTOR = '0xbb680ff6'; // purchase(address,uint256,bytes32[],bytes)
export const APPROVE_SELECTOR = '0x095ea7b3'; // approve(address,uint256)
export const ALLOWANCE_SELECTOR = '0xdd62ed3e'; // allowance(address,address)
export const DECIMALS_SELECTOR = '0x313ce567'; // decimals()
export const SYMBOL_SELECTOR = '0x95d89b41'; // symbol()
/** keccak256("Transfer(address,address,uint256)"): the mint's event in a receipt. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const HEX = /^0x[0-9a-fA-F]*$/;

/** One 32-byte word of an unsigned integer (bigint or number), without 0x. */
export function word(n) {
  const v = BigInt(n);
  if (v < 0n || v >= 1n << 256n) throw new Error(`out of uint256 range: ${v}`);
  return v.toString(16).padStart(64, '0');
}

export function addressWord(a) {
  if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new Error(`not an address: ${a}`);
  return a.slice(2).toLowerCase().padStart(64, '0');
}

/** UTF-8 text as 0x hex ("0x" for the empty string). */
export function utf8Hex(text) {
  return `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** The buyer's choices as purchase data: UTF-8 JSON of {name: value}, or "0x" when there are none. */
export function choicesData(choices) {
  const picked = Object.fromEntries(Object.entries(choices).filter(([, v]) => typeof v === 'string' && v.trim() !== ''));
  return Object.keys(picked).length === 0 ? '0x' : utf8Hex(JSON.stringify(picked));
}

function bytesTail(hex) {
  if (!HEX.test(hex) || hex.length % 2 !== 0) throw new Error('data must be 0x-prefixed hex of whole bytes');
  const body = hex.slice(2).toLowerCase();
  const padded = body.padEnd(Math.ceil(body.length / 64) * 64, '0');
  return word(body.length / 2) + padded;
}

/** Calldata of purchase(to, quantity, proof, data). */
export function encodePurchase(to, quantity, proof, data) {
  for (const p of proof) if (!/^0x[0-9a-fA-F]{64}$/.test(p)) throw new Error(`not a bytes32: ${p}`);
  const proofTail = word(proof.length) + proof.map((p) => p.slice(2).toLowerCase()).join('');
  const headSize = 4 * 32;
  const head = addressWord(to) + word(quantity) + word(headSize) + word(headSize + proofTail.length / 2);
  return PURCHASE_SELECTOR + head + proofTail + bytesTail(data);
}

/** Calldata of approve(spender, amount). */
export function encodeApprove(spender, amount) {
  return APPROVE_SELECTOR + addressWord(spender) + word(amount);
}

/** Calldata of allowance(owner, spender). */
export function encodeAllowance(owner, spender) {
  return ALLOWANCE_SELECTOR + addressWord(owner) + addressWord(spender);
}

/** A uint256 answer of eth_call (decimals(), allowance()). */
export function decodeUint(hex) {
  if (typeof hex !== 'string' || !HEX.test(hex) || hex.length < 66) throw new Error('the token gave no number');
  return BigInt(hex.slice(0, 66));
}

/**
 * The answer of symbol(): an ABI string, or a bytes32 (older tokens) whose trailing zero bytes
 * are cut. Control characters are dropped (it is shown as text).
 */
export function decodeSymbol(hex) {
  if (typeof hex !== 'string' || !HEX.test(hex) || hex.length < 66) throw new Error('the token gave no symbol');
  const body = hex.slice(2);
  const bytesAt = (start, length) => {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = Number.parseInt(body.slice((start + i) * 2, (start + i) * 2 + 2), 16);
    return out;
  };
  let bytes;
  if (body.length >= 128 && BigInt(`0x${body.slice(0, 64)}`) === 32n) {
    const length = Number(BigInt(`0x${body.slice(64, 128)}`));
    if (length > 64 || body.length < 128 + length * 2) throw new Error('the token gave a malformed symbol');
    bytes = bytesAt(64, length);
  } else {
    bytes = bytesAt(0, 32);
    let end = bytes.length;
    while (end > 0 && bytes[end - 1] === 0) end--;
    bytes = bytes.slice(0, end);
  }
  // control bytes dropped (UTF-8's multibyte sequences are all >= 0x80)
  return new TextDecoder().decode(bytes.filter((b) => b >= 0x20 && b !== 0x7f)).trim();
}

/** Smallest units as a decimal amount: formatUnits(2500000n, 6) is "2.5". */
export function formatUnits(value, decimals) {
  const v = BigInt(value);
  const d = Number(decimals);
  const base = 10n ** BigInt(d);
  const frac = d === 0 ? '' : (v % base).toString().padStart(d, '0').replace(/0+$/, '');
  return frac ? `${v / base}.${frac}` : `${v / base}`;
}

/** Token ids minted to anyone (Transfer from the zero address) by `contract` in a receipt's logs. */
export function mintedTokenIds(receipt, contract) {
  const zero = `0x${'0'.repeat(64)}`;
  return (receipt.logs ?? [])
    .filter(
      (l) =>
        l.address?.toLowerCase() === contract.toLowerCase() &&
        l.topics?.length === 4 &&
        l.topics[0].toLowerCase() === TRANSFER_TOPIC &&
        BigInt(l.topics[1]) === BigInt(zero),
    )
    .map((l) => Number(BigInt(l.topics[3])));
}
