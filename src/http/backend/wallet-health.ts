/**
 * The platform wallet's health for the operator (docs/operations.md "Wallet health"): what the
 * wallet-health duty last stored per chain, the same rows /readyz and /metrics show.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WalletHealthReads } from '../../services/wallet-health.ts';
import { ok } from '../schemas/common.ts';
import { walletHealthQuery, walletHealthResponse } from '../schemas/wallet-health.ts';

export const walletHealthRoutes: FastifyPluginAsync<{ walletHealth: WalletHealthReads }> = async (app, { walletHealth }) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/wallet-health',
    {
      schema: {
        tags: ['operations'],
        operationId: 'getWalletHealth',
        summary: "The platform wallet's balance per chain",
        description:
          "The platform wallet's address, balance and low-balance threshold on each chain, and whether it is low, as the wallet-health duty last read them (every WALLET_HEALTH_INTERVAL_MS; an empty list until its first read), every chain at once: a query parameter is refused (400 naming it). The operator (service key) only.",
        querystring: walletHealthQuery,
        response: { 200: walletHealthResponse },
      },
    },
    async (req) => ok({ wallets: await walletHealth.list(req.caller) }),
  );
};
