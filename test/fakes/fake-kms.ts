/**
 * A fake AWS KMS (not KMS, not LocalStack): the documented JSON protocol (POST /,
 * `Content-Type: application/x-amz-json-1.1`, `X-Amz-Target: TrentService.<Operation>`) for
 * `GetPublicKey` and `Sign`, with one real
 * ECC_SECG_P256K1 key. GetPublicKey answers a DER SubjectPublicKeyInfo; Sign (MessageType DIGEST,
 * ECDSA_SHA_256) answers a DER ECDSA signature with no recovery bit and, like KMS, does not
 * normalise s to the lower half. Errors use KMS's `{__type, message}` shape. Requests must carry
 * a SigV4 Authorization header (its signature is not checked).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { secp256k1 } from '@noble/curves/secp256k1';
import { bytesToHex, getAddress, keccak256, type Address } from 'viem';

/** DER prefix of a secp256k1 SubjectPublicKeyInfo: id-ecPublicKey, secp256k1, BIT STRING of 65 bytes. */
const SPKI_PREFIX = Buffer.from('3056301006072a8648ce3d020106052b8104000a034200', 'hex');

export interface FakeKms {
  url: string;
  keyId: string;
  /** The address of the key (what NFT_SIGNER_ADDRESS must be). */
  address: Address;
  calls: string[];
  /** How many signatures had s in the upper half (the signer must normalise those). */
  highS: number;
  close(): Promise<void>;
}

export async function startFakeKms(): Promise<FakeKms> {
  const priv = secp256k1.utils.randomPrivateKey();
  const pub = secp256k1.getPublicKey(priv, false);
  const spki = Buffer.concat([SPKI_PREFIX, pub]);
  const keyId = 'arn:aws:kms:us-east-1:000000000000:key/0f3b5a1e-fake-4000-8000-000000000001';
  const address = getAddress(`0x${keccak256(bytesToHex(pub.subarray(1))).slice(-40)}`);
  const state = { calls: [] as string[], highS: 0 };

  const fail = (res: http.ServerResponse, status: number, type: string, message: string) =>
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ __type: type, message }));

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '');
    if (req.method !== 'POST' || !String(req.headers['content-type']).startsWith('application/x-amz-json-1.1')) {
      return fail(res, 400, 'UnrecognizedClientException', 'expected POST with application/x-amz-json-1.1');
    }
    if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 ')) {
      return fail(res, 400, 'MissingAuthenticationTokenException', 'missing SigV4 authorization');
    }
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return fail(res, 400, 'SerializationException', 'bad JSON');
    }
    state.calls.push(target);
    if (body.KeyId !== keyId) return fail(res, 400, 'NotFoundException', `Key '${body.KeyId}' does not exist`);
    if (target === 'TrentService.GetPublicKey') {
      return res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(
        JSON.stringify({
          KeyId: keyId,
          PublicKey: spki.toString('base64'),
          KeySpec: 'ECC_SECG_P256K1',
          CustomerMasterKeySpec: 'ECC_SECG_P256K1',
          KeyUsage: 'SIGN_VERIFY',
          SigningAlgorithms: ['ECDSA_SHA_256'],
        }),
      );
    }
    if (target === 'TrentService.Sign') {
      if (body.SigningAlgorithm !== 'ECDSA_SHA_256') return fail(res, 400, 'InvalidKeyUsageException', 'unsupported SigningAlgorithm');
      const message = Buffer.from(String(body.Message ?? ''), 'base64');
      if (body.MessageType !== 'DIGEST') return fail(res, 400, 'ValidationException', 'this fake signs digests only');
      if (message.length !== 32) return fail(res, 400, 'ValidationException', 'Digest is invalid length for algorithm ECDSA_SHA_256.');
      const sig = secp256k1.sign(message, priv, { lowS: false, prehash: false } as never);
      if (sig.hasHighS()) state.highS++;
      return res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(
        JSON.stringify({
          KeyId: keyId,
          Signature: Buffer.from(sig.toDERRawBytes()).toString('base64'),
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      );
    }
    return fail(res, 400, 'UnknownOperationException', `unknown operation ${target}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    keyId,
    address,
    get calls() {
      return state.calls;
    },
    get highS() {
      return state.highS;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
