/**
 * A platform wallet without the funds to pay for gas is the operator's problem, not the client's:
 * every send through this wrapper turns the node's "insufficient funds" refusal into a 503 that
 * names the wallet, the chain and what to do (no opaque 500 for an unfunded wallet: docs/security.md "No 5xx from any client input").
 * One wrapper around the chain's sender covers every write (deploys, mints, admin actions).
 */
import { AppError } from '../domain/errors.ts';
import { TxFailedError, type TxSender } from './tx/api.ts';

const INSUFFICIENT = /insufficient funds/i;

export function unfundedWalletError(err: unknown, wallet: string, chainId: number): AppError | undefined {
  if (!(err instanceof TxFailedError) || !INSUFFICIENT.test(err.message)) return undefined;
  return new AppError(
    'unavailable',
    `the platform wallet ${wallet} has insufficient funds to pay for gas on chain ${chainId}; send it native currency and retry (nothing was sent)`,
    { code: 'WALLET_UNFUNDED', wallet },
  );
}

/**
 * The same sender; a send refused for lack of funds rejects with the 503 above. A proxy, so every
 * other member of the sender (present or added later) passes through unchanged.
 */
export function withFundsCheck(sender: TxSender): TxSender {
  const send: TxSender['send'] = async (req) => {
    try {
      return await sender.send(req);
    } catch (err) {
      throw unfundedWalletError(err, sender.address, sender.chainId) ?? err;
    }
  };
  return new Proxy(sender, {
    get(target, prop) {
      if (prop === 'send') return send;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
