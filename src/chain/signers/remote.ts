/**
 * A remote JSON-RPC signer that holds the key (Web3Signer, Clef, anvil with an unlocked account):
 * `eth_signTransaction`, `eth_signTypedData_v4` and `eth_sign` for the configured address. What it
 * answers is checked before use: the signature must recover to our address and a signed
 * transaction must be the one we asked for, so a misconfigured or compromised signer cannot make
 * the sender store and broadcast something else. The URL (it may carry credentials) and the token
 * never appear in an error.
 */
import {
  formatTransactionRequest,
  getAddress,
  getTypesForEIP712Domain,
  isAddressEqual,
  keccak256,
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  serializeTypedData,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
  type TransactionSerializable,
} from 'viem';
import { toAccount } from 'viem/accounts';

export interface RemoteSignerOptions {
  url: string;
  address: Address;
  chainId: number;
  /** Sent as `Authorization: Bearer <token>` (never in an error or a log line). */
  token?: string;
  /** Per request (ms); the sender holds the wallet's nonce lock while it signs. Default 10 s. */
  timeoutMs?: number;
}

export class RemoteSignerError extends Error {
  constructor(message: string) {
    super(`remote signer: ${message}`);
    this.name = 'RemoteSignerError';
  }
}

export function remoteAccount(opts: RemoteSignerOptions): LocalAccount {
  const address = getAddress(opts.address);
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[]): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
    } catch (err) {
      throw new RemoteSignerError(`${method} did not reach the signer (${(err as Error).name})`);
    }
    if (!res.ok) throw new RemoteSignerError(`${method} answered HTTP ${res.status}`);
    const body = (await res.json().catch(() => undefined)) as { result?: T; error?: { code?: number; message?: string } } | undefined;
    if (!body) throw new RemoteSignerError(`${method} answered something other than JSON`);
    if (body.error) throw new RemoteSignerError(`${method} refused: ${String(body.error.message ?? body.error.code).slice(0, 200)}`);
    if (typeof body.result !== 'string' || !/^0x[0-9a-fA-F]+$/.test(body.result)) {
      throw new RemoteSignerError(`${method} answered no hex result`);
    }
    return body.result as T;
  };

  const mustBeUs = (who: Address, what: string) => {
    if (!isAddressEqual(who, address)) throw new RemoteSignerError(`${what} was signed by ${who}, not by ${address}`);
  };

  return toAccount({
    address,
    async signTransaction(tx) {
      const request = formatTransactionRequest({ ...(tx as object), from: address } as never) as Record<string, unknown>;
      const raw = await rpc<Hex>('eth_signTransaction', [{ ...request, chainId: toHex(tx.chainId ?? opts.chainId) }]);
      mustBeUs(await recoverTransactionAddress({ serializedTransaction: raw as never }), 'the transaction');
      const got = parseTransaction(raw) as TransactionSerializable;
      const same =
        got.nonce === tx.nonce &&
        (got.to ?? null)?.toLowerCase() === (tx.to ?? null)?.toLowerCase() &&
        (got.value ?? 0n) === (tx.value ?? 0n) &&
        (got.data ?? '0x').toLowerCase() === (tx.data ?? '0x').toLowerCase() &&
        got.gas === tx.gas &&
        got.chainId === (tx.chainId ?? opts.chainId) &&
        got.maxFeePerGas === tx.maxFeePerGas &&
        got.maxPriorityFeePerGas === tx.maxPriorityFeePerGas;
      if (!same) throw new RemoteSignerError(`signed a different transaction than requested (hash ${keccak256(raw)})`);
      return raw;
    },
    async signMessage({ message }) {
      const data = typeof message === 'string' ? toHex(message) : typeof message.raw === 'string' ? message.raw : toHex(message.raw);
      const signature = await rpc<Hex>('eth_sign', [address, data]);
      mustBeUs(await recoverMessageAddress({ message, signature }), 'the message');
      return signature;
    },
    async signTypedData(typedData) {
      // The domain's own types go along: without them the domain is left out of the JSON.
      const td = typedData as { domain?: Record<string, unknown>; types: Record<string, unknown> };
      const full = { ...td, types: { EIP712Domain: getTypesForEIP712Domain({ domain: td.domain as never }), ...td.types } };
      const signature = await rpc<Hex>('eth_signTypedData_v4', [address, serializeTypedData(full as never)]);
      mustBeUs(await recoverTypedDataAddress({ ...(typedData as object), signature } as never), 'the typed data');
      return signature;
    },
  });
}
