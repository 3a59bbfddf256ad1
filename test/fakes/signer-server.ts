/**
 * A fake remote signer: a separate JSON-RPC endpoint that holds a private key, speaking the
 * documented signing methods of Web3Signer's and Clef's Ethereum JSON-RPC API (`eth_accounts`,
 * `eth_signTransaction`: EIP-1559 request object → raw signed transaction, `eth_signTypedData_v4`,
 * `eth_sign`). Not either product: no key store, no slashing protection, no approval UI. With
 * `token`, it answers 401 to a request without `Authorization: Bearer <token>` (an authenticating
 * proxy in front of a signer). The platform under test gets only its URL, address and token.
 * Every call is recorded by method name.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hexToBigInt, hexToNumber, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

export interface FakeSignerServer {
  url: string;
  address: Hex;
  calls: string[];
  close(): Promise<void>;
}

export async function startFakeSignerServer(key: Hex = generatePrivateKey(), opts: { token?: string } = {}): Promise<FakeSignerServer> {
  const account = privateKeyToAccount(key);
  const calls: string[] = [];
  const sign = async (method: string, params: any[]): Promise<unknown> => {
    switch (method) {
      case 'eth_accounts':
        return [account.address];
      case 'eth_signTransaction': {
        const t = params[0];
        if (t.from?.toLowerCase() !== account.address.toLowerCase()) throw new Error(`unknown account ${t.from}`);
        return account.signTransaction({
          type: 'eip1559',
          chainId: hexToNumber(t.chainId),
          nonce: hexToNumber(t.nonce),
          to: t.to ?? null,
          data: t.data ?? t.input,
          value: t.value ? hexToBigInt(t.value) : 0n,
          gas: hexToBigInt(t.gas),
          maxFeePerGas: hexToBigInt(t.maxFeePerGas),
          maxPriorityFeePerGas: hexToBigInt(t.maxPriorityFeePerGas),
        });
      }
      case 'eth_signTypedData_v4': {
        if (String(params[0]).toLowerCase() !== account.address.toLowerCase()) throw new Error(`unknown account ${params[0]}`);
        const td = typeof params[1] === 'string' ? JSON.parse(params[1]) : params[1];
        return account.signTypedData(td);
      }
      case 'eth_sign':
        if (String(params[0]).toLowerCase() !== account.address.toLowerCase()) throw new Error(`unknown account ${params[0]}`);
        return account.signMessage({ message: { raw: params[1] } });
      default:
        throw Object.assign(new Error(`the method ${method} does not exist`), { code: -32601 });
    }
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    calls.push(body.method);
    try {
      const result = await sign(body.method, body.params ?? []);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
    } catch (err) {
      const e = err as Error & { code?: number };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: e.code ?? -32000, message: e.message } }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    address: account.address,
    calls,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
