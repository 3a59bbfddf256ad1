// Hand-made ABI encoding for the two calls the mint page sends (docs/mint-page.md): the sale's
// purchase(address,uint256,bytes32[],bytes) and an ERC-20's approve(address,uint256). Fixed
// signatures, so a few lines instead of a bundled encoder; test/mint-page.test.ts compares every
// output with viem's encodeFunctionData.

export const PURCHASE_SELECTOR = '0xbb680ff6'; // purchase(address,uint256,bytes32[],bytes)
export const APPROVE_SELECTOR = '0x095ea7b3'; // approve(address,uint256)
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
