// Addresses as people type them, checked as the API checks them (src/domain/address.ts): all
// lower case, all upper case, or a correct EIP-55 checksum. A mixed-case address whose checksum
// is wrong is a mistyped digit: refused, naming the checksummed form of what was typed.
// EIP-55 needs keccak-256, which browsers do not offer (SHA-3 differs in its padding): this is
// the Keccak-f[1600] permutation on 64-bit lanes as BigInt, ample for 40-character inputs.

const ROUND_CONSTANTS = [
  0x0000000000000001n,
  0x0000000000008082n,
  0x800000000000808an,
  0x8000000080008000n,
  0x000000000000808bn,
  0x0000000080000001n,
  0x8000000080008081n,
  0x8000000000008009n,
  0x000000000000008an,
  0x0000000000000088n,
  0x0000000080008009n,
  0x000000008000000an,
  0x000000008000808bn,
  0x800000000000008bn,
  0x8000000000008089n,
  0x8000000000008003n,
  0x8000000000008002n,
  0x8000000000000080n,
  0x000000000000800an,
  0x800000008000000an,
  0x8000000080008081n,
  0x8000000000008080n,
  0x0000000080000001n,
  0x8000000080008008n,
];
const ROTATIONS = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
const MASK = (1n << 64n) - 1n;
const rotl = (x, n) => (n === 0 ? x : ((x << BigInt(n)) | (x >> BigInt(64 - n))) & MASK);

function keccakF(a) {
  for (const rc of ROUND_CONSTANTS) {
    const c = [0, 1, 2, 3, 4].map((x) => a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20]);
    for (let x = 0; x < 5; x++) {
      const d = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1);
      for (let y = 0; y < 25; y += 5) a[x + y] ^= d;
    }
    const b = new Array(25);
    for (let x = 0; x < 5; x++) for (let y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y], ROTATIONS[x + 5 * y]);
    for (let x = 0; x < 5; x++) for (let y = 0; y < 25; y += 5) a[x + y] = b[x + y] ^ (~b[((x + 1) % 5) + y] & MASK & b[((x + 2) % 5) + y]);
    a[0] ^= rc;
  }
}

/** keccak-256 of bytes (Uint8Array), as 64 hex digits. */
export function keccak256Hex(bytes) {
  const rate = 136;
  const padded = new Uint8Array(Math.ceil((bytes.length + 1) / rate) * rate);
  padded.set(bytes);
  padded[bytes.length] ^= 0x01;
  padded[padded.length - 1] ^= 0x80;
  const state = new Array(25).fill(0n);
  for (let off = 0; off < padded.length; off += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let lane = 0n;
      for (let k = 7; k >= 0; k--) lane = (lane << 8n) | BigInt(padded[off + i * 8 + k]);
      state[i] ^= lane;
    }
    keccakF(state);
  }
  let out = '';
  for (let i = 0; i < 4; i++)
    for (let k = 0; k < 8; k++)
      out += Number((state[i] >> BigInt(8 * k)) & 0xffn)
        .toString(16)
        .padStart(2, '0');
  return out;
}

/** The EIP-55 form of a well-formed address. */
export function checksumAddress(address) {
  const digits = address.slice(2).toLowerCase();
  const hash = keccak256Hex(new TextEncoder().encode(digits));
  let out = '0x';
  for (let i = 0; i < 40; i++) out += Number.parseInt(hash[i], 16) >= 8 ? digits[i].toUpperCase() : digits[i];
  return out;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** What is wrong with `text` as an address, in words; null when it is one. */
export function addressProblem(text) {
  if (!ADDRESS.test(text)) return 'expected 0x followed by 40 hex digits';
  const digits = text.slice(2);
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return null;
  const checksummed = checksumAddress(text);
  return checksummed === text ? null : `checksum mismatch: did you mean ${checksummed}?`;
}

/** `text` trimmed when it is an address; otherwise throws "<label>: <problem>". */
export function readAddress(label, text) {
  const value = text.trim();
  const problem = addressProblem(value);
  if (problem) throw new Error(`${label}: ${problem}`);
  return value;
}
