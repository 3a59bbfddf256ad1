/**
 * Wallet routes (docs/auth.md "Wallets"): Sign-In with Ethereum (EIP-4361) links a wallet to the
 * signed-in caller — a nonce, then the signed message — and the caller's linked wallets.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WalletService } from '../../services/wallets.ts';
import { ok } from '../schemas/common.ts';
import { walletListResponse, walletNonceBody, walletNonceResponse, walletVerifyBody, walletVerifyResponse } from '../schemas/identity.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const walletRoutes: FastifyPluginAsync<{ wallets: WalletService }> = async (app, { wallets }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['identity'];

  r.post(
    '/api/auth/wallet/nonce',
    {
      schema: {
        tags,
        operationId: 'createWalletNonce',
        summary: 'A Sign-In with Ethereum nonce',
        description:
          'A single-use nonce for the caller (it expires after SIWE_NONCE_TTL_SECONDS), with the domain, URI and chain the EIP-4361 message must name; with `address`, the exact message to sign.',
        body: walletNonceBody,
        response: { 201: walletNonceResponse },
      },
    },
    async (req, reply) => {
      const n = await wallets.nonce(req.caller, req.body ?? {});
      return reply.code(201).send(ok({ ...n, expires_at: n.expires_at.toISOString() }));
    },
  );

  r.post(
    '/api/auth/wallet/verify',
    {
      schema: {
        tags,
        operationId: 'verifyWalletSignature',
        summary: 'Link a wallet by its signature',
        description:
          "Checks a signed EIP-4361 message (domain, chain, time window, signature — contract wallets by EIP-1271 — and the caller's unused nonce) and links the wallet to the caller as a `wallet` identity. 400 naming the failed check; 409 when another user holds the wallet.",
        body: walletVerifyBody,
        response: { 200: walletVerifyResponse },
      },
    },
    async (req) => {
      const v = await wallets.verify(req.caller, req.body);
      return ok({ ...v, linked_at: v.linked_at.toISOString(), provider: 'wallet' as const });
    },
  );

  r.get(
    '/api/wallets',
    {
      schema: {
        tags,
        operationId: 'listWallets',
        summary: "The caller's linked wallets",
        description: 'Wallets the caller proved with Sign-In with Ethereum, oldest first.',
        response: { 200: walletListResponse },
      },
    },
    async (req) =>
      ok(
        (await wallets.list(req.caller)).map((w) => ({
          address: w.address,
          linked_at: w.linked_at.toISOString(),
          last_used_at: iso(w.last_used_at),
        })),
      ),
  );
};
