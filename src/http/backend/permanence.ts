/**
 * Permanence (docs/permanence.md): POST/GET /nft/collections/:id/export (owner or operator) start
 * and read a collection's content-addressed export, POST …/export/pin pins it again on the
 * configured IPFS target; POST /nft/collections/:id/freeze points the contract at it for good;
 * GET /ipfs/<cid>/<path> (public) serves a stored bundle, every block checked against its CID
 * (and `?format=car|raw` of a bare CID, for IPFS services fetching it).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalid } from '../../domain/errors.ts';
import type { FreezeService } from '../../services/freeze.ts';
import type { PermanenceService } from '../../services/permanence.ts';
import { collectionIdParams, ok } from '../schemas/common.ts';
import { envelope } from '../schemas/envelope.ts';
import { exportView, freezeView, ipfsParams, ipfsQuery, noFieldsBody } from '../schemas/permanence.ts';

const tags = ['permanence'];

/**
 * A bundle's pages run in a sandbox (an opaque origin: no access to this backend's cookies or
 * storage) and load only from the bundle itself.
 */
const BUNDLE_CSP =
  "sandbox allow-scripts; default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; connect-src 'self'";

export async function permanenceRoutes(
  app: FastifyInstance,
  { permanence, freeze }: { permanence: PermanenceService; freeze: FreezeService },
) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/nft/collections/:collectionId/export',
    {
      schema: {
        operationId: 'exportCollection',
        summary: 'Export the collection as a content-addressed bundle (CAR)',
        description:
          'Owner or operator. Only once the sale is closed: sold out, minting turned off (mintActive false), or the on-chain sale ended; else 409 SALE_OPEN naming why. Answers 202 with the export record; the bundle (images, token documents, receipts, contract.json, a static viewer) is built in the background: poll GET …/export until ready (docs/permanence.md). A request while one is building answers that one.',
        tags,
        params: collectionIdParams,
        body: noFieldsBody,
        response: { 202: envelope(exportView) },
      },
    },
    async (req, reply) => reply.code(202).send(ok(await permanence.request(req.caller, req.params.collectionId))),
  );
  r.get(
    '/nft/collections/:collectionId/export',
    {
      schema: {
        operationId: 'readCollectionExport',
        summary: "The collection's newest export",
        description:
          'Owner or operator: status (building, ready, failed), root_cid, car_url (the CARv1 file), gateway_url. 404 before any export.',
        tags,
        params: collectionIdParams,
        response: { 200: envelope(exportView) },
      },
    },
    async (req) => ok(await permanence.latest(req.caller, req.params.collectionId)),
  );
  r.post(
    '/nft/collections/:collectionId/export/pin',
    {
      schema: {
        operationId: 'pinCollectionExport',
        summary: 'Pin the newest export on the IPFS pin target again',
        description:
          'Owner or operator. Retries the pin of the newest ready export on the configured target (IPFS_PIN_TARGET: Kubo, a Pinning Service API, an S3 bucket importing CARs) after a failed pin, or pins one made before a target was configured. Answers 202 with the export, pin_status pinning; poll GET …/export until pinned or failed (pinned only once the target answered the root and sample paths with exactly the bundle\'s bytes; docs/permanence.md "Pinning"). 503 without a target, 404 before any export, 409 EXPORT_NOT_READY while it builds or after it failed, 409 ALREADY_PINNED.',
        tags,
        params: collectionIdParams,
        body: noFieldsBody,
        response: { 202: envelope(exportView) },
      },
    },
    async (req, reply) => reply.code(202).send(ok(await permanence.repin(req.caller, req.params.collectionId))),
  );

  r.post(
    '/nft/collections/:collectionId/freeze',
    {
      schema: {
        operationId: 'freezeCollection',
        summary: "Freeze the contract's metadata at the collection's bundle (irreversible)",
        description:
          'Owner or operator. Needs a ready export (409 NOT_EXPORTED) and a closed sale (409 SALE_OPEN naming why). For a contract the platform wallet owns, sends setMaxSupply(totalSupply) when maxSupply is above it (no token can be minted past the bundle), setBaseURI(ipfs://<root>/metadata/), setContractURI(ipfs://<root>/contract.json) and freezeMetadata() and answers 200 once all are mined; the metadata routes then answer the bundle\'s documents. A creator-owned contract answers 409 OWNER_MUST_SIGN with the `calls` {to, data, description} its owner sends; once the chain shows it frozen at this bundle, POST again to record it. 409 EXPORT_STALE when the export does not hold every token on chain, TOKENS_NOT_FOLLOWED when the contract has tokens the platform has not recorded yet, ALREADY_FROZEN when it is frozen; 409 FREEZE_IN_PROGRESS while another request for the collection is sending (docs/permanence.md "Freezing").',
        tags,
        params: collectionIdParams,
        body: noFieldsBody,
        response: { 200: envelope(freezeView) },
      },
    },
    async (req) => ok(await freeze.freeze(req.caller, req.params.collectionId)),
  );

  const serve = async (
    cid: string,
    path: string,
    hadSlash: boolean,
    format: 'car' | 'raw' | undefined,
    reply: import('fastify').FastifyReply,
  ) => {
    if (format) {
      if (path !== '') throw invalid('query.format: car and raw are answered for a bare /ipfs/<cid> only');
      const found = await permanence.verbatim(cid, format);
      return reply
        .header('access-control-allow-origin', '*')
        .header('content-type', format === 'car' ? 'application/vnd.ipld.car; version=1' : 'application/vnd.ipld.raw')
        .header('etag', `"${found.cid}.${format}"`)
        .header('x-ipfs-path', `/ipfs/${found.cid}`)
        .header('cache-control', 'public, max-age=29030400, immutable')
        .send(Buffer.from(found.bytes));
    }
    const found = await permanence.gateway(cid, path);
    reply
      .header('access-control-allow-origin', '*')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', BUNDLE_CSP);
    if (found.kind === 'directory') {
      // Relative URLs resolve against a directory only with its trailing slash.
      if (!hadSlash) return reply.redirect(`/ipfs/${cid}/${path ? `${path}/` : ''}`, 301);
      if (found.entries.includes('index.html')) {
        const index = await permanence.gateway(cid, path ? `${path}/index.html` : 'index.html');
        if (index.kind === 'file')
          return reply.header('content-type', index.contentType).header('etag', `"${index.cid}"`).send(index.bytes);
      }
      return reply.header('content-type', 'application/json').send({ cid: found.cid, entries: found.entries });
    }
    return reply
      .header('content-type', found.contentType)
      .header('etag', `"${found.cid}"`)
      .header('x-ipfs-path', `/ipfs/${cid}/${path}`)
      .header('cache-control', 'public, max-age=29030400, immutable')
      .send(found.bytes);
  };

  const description =
    'Public. A file of a stored export by its root (or images directory) CID and a path inside it, read from the stored CAR with every block checked against its CID. A directory redirects to its trailing-slash form and answers its index.html. On a bare CID, ?format=car answers the stored CARv1 of a bundle root and ?format=raw the block itself (for IPFS services fetching the bundle from here). 400 for a string that is not a CID, 404 for a CID no ready export has or a path it does not hold.';
  const fileResponse = {
    200: {
      description: 'the file',
      content: { 'application/octet-stream': { schema: z.any().describe('the bytes, with their own content type') } },
    },
  };
  r.get(
    '/ipfs/:cid',
    {
      config: { public: true },
      schema: {
        operationId: 'getIpfsRoot',
        summary: 'A stored bundle by CID',
        description,
        tags,
        params: ipfsParams.pick({ cid: true }),
        querystring: ipfsQuery,
        response: fileResponse,
      },
    },
    async (req, reply) => serve(req.params.cid, '', false, req.query.format, reply),
  );
  r.get(
    '/ipfs/:cid/*',
    {
      config: { public: true },
      schema: {
        operationId: 'getIpfsPath',
        summary: 'A file of a stored bundle by CID and path',
        description,
        tags,
        params: ipfsParams,
        querystring: ipfsQuery,
        response: fileResponse,
      },
    },
    async (req, reply) => {
      const path = req.params['*'];
      return serve(req.params.cid, path.replace(/\/$/, ''), path === '' || path.endsWith('/'), req.query.format, reply);
    },
  );
}
