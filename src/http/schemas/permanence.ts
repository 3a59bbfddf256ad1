/** Collection exports and the bundle gateway (docs/permanence.md). */
import { z } from 'zod';
import { EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_URL, withExample } from './examples.ts';

const EXAMPLE_ROOT = 'bafybeihkoviema7g3gxyt6la7vd5ho32ictqbilu3wnlo3rs7ewhnp7lly';
const EXAMPLE_EXPORT_ID = '7f0c2a5e-1d3b-4e8a-9c6f-2b4d8e0a1c3f';

export const exportView = withExample(
  z.object({
    id: z.string(),
    collection_id: z.string(),
    status: z.enum(['building', 'ready', 'failed']).describe('building until the bundle is stored, then ready (or failed with error)'),
    closed_reason: z.string().describe('why the sale counted as closed: sold_out, minting_off or sale_ended'),
    root_cid: z.string().nullable().describe("the bundle's root CID (CIDv1) once ready"),
    images_cid: z.string().nullable().describe('the images directory CID the token documents name (ipfs://<images_cid>/<tokenId>.<ext>)'),
    car_url: z.string().nullable().describe('where the CARv1 file downloads from, once ready'),
    gateway_url: z.string().nullable().describe('the bundle on this backend (GET /ipfs/<root>/), once ready'),
    car_bytes: z.number().nullable(),
    token_count: z.number().nullable(),
    error: z.string().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    pin_status: z
      .enum(['none', 'pinning', 'pinned', 'failed'])
      .describe(
        'the copy on the configured IPFS pin target (IPFS_PIN_TARGET): none without a target, pinning, pinned once the target answered the root and sample paths with exactly our bytes, or failed with pin_error',
      ),
    pin_target: z.string().nullable().describe('the target pinned to: kind and host, e.g. "kubo 127.0.0.1:5001"'),
    pin_error: z
      .string()
      .nullable()
      .describe("why the pin failed (the path the target answered differently, the service's reason, a timeout)"),
    pinned_at: z.string().nullable(),
  }),
  {
    id: EXAMPLE_EXPORT_ID,
    collection_id: EXAMPLE_ID.collection,
    status: 'ready',
    closed_reason: 'sold_out',
    root_cid: EXAMPLE_ROOT,
    images_cid: 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi',
    car_url: `${EXAMPLE_URL.base}/files/exports/${EXAMPLE_ID.collection}/${EXAMPLE_EXPORT_ID}.car`,
    gateway_url: `${EXAMPLE_URL.base}/ipfs/${EXAMPLE_ROOT}/`,
    car_bytes: 1843210,
    token_count: 10,
    error: null,
    created_at: EXAMPLE_TIME.completed,
    finished_at: EXAMPLE_TIME.completed,
    pin_status: 'pinned',
    pin_target: 'kubo 127.0.0.1:5001',
    pin_error: null,
    pinned_at: EXAMPLE_TIME.completed,
  },
);

/**
 * The body of POST …/export, …/export/pin and …/freeze: none, or `{}`. The routes take nothing but
 * the path, and an unknown field is refused (400 naming it) as on every other route that takes a
 * body, rather than ignored. The admin proxy's forwards send no body.
 */
export const noFieldsBody = withExample(z.strictObject({}), {}).optional();

/** `?format=car` (the stored CAR of a bundle root) or `?format=raw` (one block): what IPFS services fetching from this backend ask for. */
export const ipfsQuery = z.object({
  format: z.enum(['car', 'raw']).optional().describe('car: the whole bundle as the stored CARv1 (a root only); raw: the block itself'),
});

export const ipfsParams = z.object({
  cid: withExample(z.string().min(1).max(200), EXAMPLE_ROOT),
  '*': withExample(z.string(), 'metadata/1'),
});

const EXAMPLE_FREEZE_TX = '0x9b2f0c1d4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e';

/** POST /nft/collections/:id/freeze's answer (docs/permanence.md "Freezing"). */
export const freezeView = withExample(
  z.object({
    collection_id: z.string(),
    chain_id: z.number(),
    contract_address: z.string(),
    root_cid: z.string().describe('the bundle the contract now points at for good'),
    base_uri: z.string().describe('ipfs://<root>/metadata/: tokenURI(n) is this followed by n'),
    contract_uri: z.string().describe('ipfs://<root>/contract.json'),
    frozen_at: z.string().nullable(),
    tx_hash: z.string().nullable().describe("freezeMetadata()'s transaction when the platform sent it; null when the owner did"),
    transactions: z
      .array(z.object({ action: z.enum(['setMaxSupply', 'setBaseURI', 'setContractURI', 'freezeMetadata']), tx_hash: z.string() }))
      .describe("this request's transactions, in order; empty when the chain was already frozen (the owner sent them)"),
  }),
  {
    collection_id: EXAMPLE_ID.collection,
    chain_id: 31337,
    contract_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    root_cid: EXAMPLE_ROOT,
    base_uri: `ipfs://${EXAMPLE_ROOT}/metadata/`,
    contract_uri: `ipfs://${EXAMPLE_ROOT}/contract.json`,
    frozen_at: EXAMPLE_TIME.completed,
    tx_hash: EXAMPLE_FREEZE_TX,
    transactions: [
      { action: 'setBaseURI', tx_hash: EXAMPLE_FREEZE_TX.replace(/e$/, '1') },
      { action: 'setContractURI', tx_hash: EXAMPLE_FREEZE_TX.replace(/e$/, '2') },
      { action: 'freezeMetadata', tx_hash: EXAMPLE_FREEZE_TX },
    ],
  },
);
