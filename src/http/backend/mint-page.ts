/**
 * The public mint page (docs/mint-page.md). Public routes, no credential, no cookie:
 *
 * - `GET /nft/collections/:id/mint-page`: the JSON the page polls (sale, supply, choices,
 *   fairness, newest mints);
 * - `GET /nft/collections/:id/allowlist-proof?address=`: {allowed, proof} for one wallet;
 * - `GET /mint/:collectionId` (`?embed=1`: the compact widget for an iframe) and
 *   `GET /mint/:chainId/:address` (redirects to the collection deployed there; `/mint/<collection
 *   id>/<anything>` is a 404): static HTML from
 *   web/mint/ with its script and styles under `/mint-assets/`, under the console's strict CSP;
 *   only the embed may be framed (frame-ancestors *).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WEB_DIR } from '../admin/ui.ts';
import { pageCsp, type CspOptions } from '../plugins/csp.ts';
import { sendError } from '../plugins/errors.ts';
import { collectionIdParams, ok, UUID_RE } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';
import { allowlistProof, allowlistProofQuery, mintPageByAddressParams, mintPageDocument, mintPageQuery } from '../schemas/mint-page.ts';
import type { NftRouteOptions } from './collections.ts';

const tags = ['minting'];
const MINT_DIR = path.join(WEB_DIR, 'mint');
/** The page's files, by name: their type and path (nothing else is served; the icon is the console's). */
const JS = 'text/javascript; charset=utf-8';
const ASSETS = new Map<string, { type: string; file: string }>([
  ['mint.js', { type: JS, file: path.join(MINT_DIR, 'mint.js') }],
  ['wallet.js', { type: JS, file: path.join(MINT_DIR, 'wallet.js') }],
  ['abi.js', { type: JS, file: path.join(MINT_DIR, 'abi.js') }],
  ['mint.css', { type: 'text/css; charset=utf-8', file: path.join(MINT_DIR, 'mint.css') }],
  ['favicon.svg', { type: 'image/svg+xml', file: path.join(WEB_DIR, 'favicon.svg') }],
]);

/** The NFT routes' options and what the page's CSP reads from the configuration. */
export type MintPageRoutesOptions = NftRouteOptions & { config: CspOptions };

export async function mintPageRoutes(app: FastifyInstance, { nft, config, publicBaseUrl, metadataBaseUrl }: MintPageRoutesOptions) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const pages = nft.mintPage;
  const publicJson = (reply: FastifyReply) => reply.header('access-control-allow-origin', '*').header('cache-control', 'no-cache');

  r.get(
    '/nft/collections/:collectionId/mint-page',
    {
      config: { public: true },
      schema: {
        operationId: 'getMintPage',
        summary: "A collection's public mint page data",
        description:
          "Public. What the mint page shows: title, description, cover, the contract's sale (price, currency, window, limit, allowlist root), minted and max supply, the variables a buyer may choose (presets or free text), the seed commitment and reveal, and the 12 newest mints with their images once generated (docs/mint-page.md). The chain's half is cached 3 s.",
        tags,
        params: collectionIdParams,
        response: { 200: envelope(mintPageDocument) },
      },
    },
    async (req, reply) => {
      publicJson(reply);
      return ok(await pages.page(req.params.collectionId));
    },
  );

  r.get(
    '/nft/collections/:collectionId/allowlist-proof',
    {
      config: { public: true },
      schema: {
        operationId: 'getAllowlistProof',
        summary: 'Whether a wallet may buy, and its Merkle proof',
        description:
          "Public. `allowed` and the `proof` to pass to purchase(to, quantity, proof, data) for the wallet `address`, built from the collection's address list (mint_allowlist; docs/minting.md \"Merkle allowlists\"). A sale without a Merkle root admits anyone with an empty proof; `matches_sale` is false when the list's root is not the sale's.",
        tags,
        params: collectionIdParams,
        querystring: allowlistProofQuery,
        response: { 200: envelope(allowlistProof) },
      },
    },
    async (req, reply) => {
      publicJson(reply);
      return ok(await pages.allowlistProof(req.params.collectionId, req.query.address));
    },
  );

  // ---------- the page itself ----------
  // Artwork is served by this backend's /files when PUBLIC_BASE_URL is unset (`npm start`).
  const imageUrls = [publicBaseUrl ?? metadataBaseUrl];
  const hidden = { config: { public: true }, schema: { hide: true } };
  const pageHeaders = (reply: FastifyReply, embed: boolean) => {
    reply
      .header('content-security-policy', pageCsp(config, { frameAncestors: embed ? '*' : "'none'", imageUrls }))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-cache');
    if (!embed) reply.header('x-frame-options', 'DENY');
    return reply;
  };
  const sendPage = async (reply: FastifyReply, embed: boolean) => {
    const html = await fs.readFile(path.join(MINT_DIR, 'index.html'));
    return pageHeaders(reply, embed).type('text/html; charset=utf-8').send(html);
  };

  r.get(
    '/mint/:collectionId',
    { ...hidden, schema: { hide: true, params: collectionIdParams, querystring: mintPageQuery } },
    async (req, reply) => {
      await pages.exists(req.params.collectionId); // 404 for an unknown collection
      return sendPage(reply, req.query.embed === '1');
    },
  );

  r.get(
    '/mint/:chainId/:address',
    {
      ...hidden,
      schema: { hide: true, params: mintPageByAddressParams, querystring: mintPageQuery },
      // `/mint/<collection id>/<anything>` has this shape too: it is no page (404 saying which is),
      // not a bad chain id.
      preValidation: async (req, reply) => {
        // before validation: the raw path segments
        const chainId = String((req.params as unknown as { chainId: string }).chainId);
        if (UUID_RE.test(chainId)) {
          const at = req.url.split('?')[0];
          return sendError(reply, 'envelope', 404, `route GET ${at} not found: a collection's mint page is /mint/${chainId}`);
        }
      },
    },
    async (req, reply) => {
      const id = await pages.idAt(req.params.chainId, req.params.address);
      const embed = req.query.embed === '1' ? '?embed=1' : '';
      return reply.header('cache-control', 'no-cache').redirect(`/mint/${id}${embed}`, 302);
    },
  );

  r.get('/mint-assets/:file', { ...hidden, schema: { hide: true, params: z.object({ file: z.string().max(64) }) } }, async (req, reply) => {
    const asset = ASSETS.get(req.params.file);
    if (!asset) return sendError(reply, 'envelope', 404, `not found: /mint-assets/${req.params.file}`);
    return pageHeaders(reply, true)
      .type(asset.type)
      .send(await fs.readFile(asset.file));
  });
}
