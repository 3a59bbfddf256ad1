/** Sign-In with Ethereum from a test: ask a nonce with the address, sign the message, verify. */
import type { PrivateKeyAccount } from 'viem/accounts';
import { bearer } from './content.ts';
import { call, type Reply } from './platform.ts';

/** Links `account` to the user of `token` through the real routes; the verify reply. */
export async function linkWallet(backendUrl: string, token: string, account: PrivateKeyAccount, chainId = 31337): Promise<Reply> {
  const n = await call(`${backendUrl}/api/auth/wallet/nonce`, {
    headers: bearer(token),
    body: { address: account.address, chain_id: chainId },
  });
  if (n.status !== 201) throw new Error(`nonce: ${n.status} ${JSON.stringify(n.body)}`);
  const message = n.body.data.message as string;
  const signature = await account.signMessage({ message });
  return call(`${backendUrl}/api/auth/wallet/verify`, { headers: bearer(token), body: { message, signature } });
}
