/** The platform wallet's health per chain (docs/operations.md "Wallet health"). */
import { z } from 'zod';
import { envelope } from './envelope.ts';
import { EXAMPLE_CHAIN, EXAMPLE_TIME, withExample } from './examples.ts';

/**
 * The route takes no query parameter (it lists every chain): one is refused, 400 naming it, as the
 * allowlist-proof route refuses an unknown one, rather than ignored as if it filtered.
 */
export const walletHealthQuery = z.strictObject({});

export const walletHealthItem = z.object({
  chain_id: z.number().int(),
  chain_name: z.string(),
  address: z.string().describe('the platform wallet (lower case, as stored)'),
  balance_wei: z.string().describe('its balance at checked_at, wei as a decimal string'),
  balance_eth: z.string(),
  threshold_wei: z
    .string()
    .describe('below this the wallet is low (WALLET_LOW_BALANCE_WEI, or WALLET_LOW_BALANCE_MINTS mints at the gas price then)'),
  threshold_eth: z.string(),
  low: z.boolean().describe('balance below the threshold: wallet.low_balance was sent when it crossed'),
  checked_at: z.string().describe('when the wallet-health duty read it (every WALLET_HEALTH_INTERVAL_MS)'),
});

export const walletHealthList = withExample(z.object({ wallets: z.array(walletHealthItem) }), {
  wallets: [
    {
      chain_id: EXAMPLE_CHAIN.chainId,
      chain_name: 'Local dev chain (31337)',
      address: EXAMPLE_CHAIN.platformWallet.toLowerCase(),
      balance_wei: '420000000000000000',
      balance_eth: '0.42',
      threshold_wei: '1000000000000000000',
      threshold_eth: '1',
      low: true,
      checked_at: EXAMPLE_TIME.minted,
    },
  ],
});

export const walletHealthResponse = envelope(walletHealthList);
