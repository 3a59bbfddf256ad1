/**
 * An AWS KMS signer: an ECC_SECG_P256K1 key that never leaves KMS. KMS signs a 32-byte digest
 * (MessageType DIGEST) and answers a DER ECDSA signature without the recovery bit, so the
 * signature is taken apart here: r and s from the DER, s moved to the lower half of the curve
 * order (EIP-2 rejects the upper half), and v found by recovering with both parities and keeping
 * the one that gives the key's address. The key's address comes from GetPublicKey (a DER
 * SubjectPublicKeyInfo) and must equal NFT_SIGNER_ADDRESS: checked once, before the first
 * signature is used.
 */
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import {
  getAddress,
  hashMessage,
  hashTypedData,
  isAddressEqual,
  keccak256,
  recoverAddress,
  serializeSignature,
  serializeTransaction,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { toAccount } from 'viem/accounts';

/** secp256k1's group order n. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export interface KmsSignerOptions {
  keyId: string;
  address: Address;
  region: string;
  /** A KMS-compatible endpoint (tests, LocalStack); default: AWS's for the region. */
  endpoint?: string;
  /** Default: the AWS SDK's credential chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export class KmsSignerError extends Error {
  constructor(message: string) {
    super(`KMS signer: ${message}`);
    this.name = 'KmsSignerError';
  }
}

/** Reads one DER TLV at `at`: its tag, and where its content starts and ends. */
function tlv(der: Uint8Array, at: number): { tag: number; start: number; end: number } {
  const tag = der[at];
  let len = der[at + 1];
  let start = at + 2;
  if (tag === undefined || len === undefined) throw new KmsSignerError('truncated DER');
  if (len & 0x80) {
    const bytes = len & 0x7f;
    if (bytes < 1 || bytes > 2) throw new KmsSignerError('unsupported DER length');
    len = 0;
    for (let i = 0; i < bytes; i++) len = (len << 8) | (der[start + i] ?? 0);
    start += bytes;
  }
  const end = start + len;
  if (end > der.length) throw new KmsSignerError('truncated DER');
  return { tag, start, end };
}

const toBig = (bytes: Uint8Array): bigint => (bytes.length === 0 ? 0n : BigInt(toHex(bytes)));

/** DER `SEQUENCE { INTEGER r, INTEGER s }` → r, s. */
export function derSignatureToRS(der: Uint8Array): { r: bigint; s: bigint } {
  const seq = tlv(der, 0);
  if (seq.tag !== 0x30) throw new KmsSignerError('signature is not a DER sequence');
  const r = tlv(der, seq.start);
  const s = tlv(der, r.end);
  if (r.tag !== 0x02 || s.tag !== 0x02) throw new KmsSignerError('signature is not two DER integers');
  return { r: toBig(der.subarray(r.start, r.end)), s: toBig(der.subarray(s.start, s.end)) };
}

/** DER SubjectPublicKeyInfo of a secp256k1 key → its Ethereum address. */
export function spkiToAddress(spki: Uint8Array): Address {
  const seq = tlv(spki, 0);
  const algorithm = tlv(spki, seq.start);
  const bits = tlv(spki, algorithm.end);
  // BIT STRING: one "unused bits" byte, then the uncompressed point 0x04 || X || Y.
  const point = spki.subarray(bits.start + 1, bits.end);
  if (bits.tag !== 0x03 || point.length !== 65 || point[0] !== 0x04) throw new KmsSignerError('public key is not an uncompressed EC point');
  return getAddress(`0x${keccak256(point.subarray(1)).slice(-40)}`);
}

export function kmsAccount(opts: KmsSignerOptions): LocalAccount {
  const address = getAddress(opts.address);
  const kms = new KMSClient({
    region: opts.region,
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    maxAttempts: 3,
  });

  let checked: Promise<void> | undefined;
  const checkKey = () => {
    checked ??= (async () => {
      const out = await kms.send(new GetPublicKeyCommand({ KeyId: opts.keyId }));
      if (out.KeySpec && out.KeySpec !== 'ECC_SECG_P256K1') throw new KmsSignerError(`the key is ${out.KeySpec}, not ECC_SECG_P256K1`);
      if (!out.PublicKey) throw new KmsSignerError('GetPublicKey answered no public key');
      const keyAddress = spkiToAddress(out.PublicKey);
      if (!isAddressEqual(keyAddress, address)) {
        throw new KmsSignerError(`the KMS key's address is ${keyAddress}, but NFT_SIGNER_ADDRESS is ${address}`);
      }
    })().catch((err) => {
      checked = undefined; // a network failure is retried on the next signature
      throw err;
    });
    return checked;
  };

  const sign = async (hash: Hex) => {
    await checkKey();
    const out = await kms.send(
      new SignCommand({
        KeyId: opts.keyId,
        Message: Buffer.from(hash.slice(2), 'hex'),
        MessageType: 'DIGEST',
        SigningAlgorithm: 'ECDSA_SHA_256',
      }),
    );
    if (!out.Signature) throw new KmsSignerError('Sign answered no signature');
    let { r, s } = derSignatureToRS(out.Signature);
    if (s > N / 2n) s = N - s;
    const rHex = toHex(r, { size: 32 });
    const sHex = toHex(s, { size: 32 });
    for (const yParity of [0, 1]) {
      const recovered = await recoverAddress({ hash, signature: { r: rHex, s: sHex, yParity } });
      if (isAddressEqual(recovered, address)) return { r: rHex, s: sHex, yParity };
    }
    throw new KmsSignerError(`the signature does not recover to ${address}`);
  };

  return toAccount({
    address,
    async signTransaction(tx, options) {
      const serializer = options?.serializer ?? serializeTransaction;
      const signature = await sign(keccak256(await serializer(tx)));
      return serializer(tx, signature);
    },
    async signMessage({ message }) {
      return serializeSignature(await sign(hashMessage(message)));
    },
    async signTypedData(typedData) {
      return serializeSignature(await sign(hashTypedData(typedData as never)));
    },
  });
}
