/**
 * Token receipts (docs/fairness.md "Receipts"): built once a token's artwork completed, from the
 * job that made it (seed and inputs, resolved variables and who chose each, prompts, workflow),
 * the workflow's definition and the output file as served (its sha256; for the built-in
 * procedural renderer also the sha256 of its decoded RGBA pixels). Stored once per output, so a
 * later change to the file shows against the receipt. Public reads.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { Hex } from 'viem';
import type { CollectionRow } from '../db/collections.ts';
import { conflict, notFound } from '../domain/errors.ts';
import type { FairSeed } from '../domain/fair-seed.ts';
import { choosersOf, type Chooser } from '../domain/minter-choices.ts';
import { canonicalJson, merkleRootOf, PROCEDURAL_RENDERER_VERSION, receiptLeaf, type TokenReceipt } from '../domain/receipt.ts';
import type { JobData } from '../generation/pipeline.ts';
import type { Storage } from '../storage/types.ts';
import { loadGenerationDataSafe } from './receipt-data.ts';

export interface ReceiptStore {
  getCollection(id: string): Promise<CollectionRow>;
  tokenArtwork(
    collectionId: string,
    tokenId: number,
  ): Promise<
    | {
        output_id: string | null;
        output_status: string | null;
        output_url: string | null;
        output_metadata: unknown;
        job_id: string | null;
        job_data: unknown;
      }
    | undefined
  >;
  storedReceipt(outputId: string): Promise<{ receipt: unknown; leaf: string } | undefined>;
  storeReceipt(r: {
    outputId: string;
    collectionId: string;
    tokenId: number;
    receipt: unknown;
    leaf: string;
  }): Promise<{ receipt: unknown; leaf: string }>;
  findWorkflow(idOrName: string): Promise<{ name: string; type: string; data: unknown; models: unknown; custom_nodes: unknown } | null>;
  mintedTokenIds(collectionId: string): Promise<number[]>;
}

export interface ReceiptPorts {
  store: ReceiptStore;
  storage?: Storage;
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** sha256 of an image's decoded RGBA pixels (width × height × 4 bytes, rows top to bottom). */
export async function pixelsSha256(bytes: Buffer): Promise<string> {
  return sha256(await sharp(bytes).ensureAlpha().raw().toBuffer());
}

/** sha256 of a workflow's definition: the canonical JSON of the fields that decide what it makes. */
export function workflowDefinitionSha256(w: { name: string; type: string; data: unknown; models: unknown; custom_nodes: unknown }): string {
  return sha256(canonicalJson({ name: w.name, type: w.type, data: w.data, models: w.models, custom_nodes: w.custom_nodes }));
}

export type Receipts = ReturnType<typeof createReceipts>;

export function createReceipts({ store, storage }: ReceiptPorts) {
  async function build(c: CollectionRow, tokenId: number): Promise<{ receipt: TokenReceipt; leaf: string } | null> {
    const art = await store.tokenArtwork(c.id, tokenId);
    if (!art) throw notFound(`token ${tokenId} of collection ${c.id}`);
    if (!art.output_id || art.output_status !== 'completed' || !art.output_url || !art.job_data) return null;
    const stored = await store.storedReceipt(art.output_id);
    if (stored) return { receipt: stored.receipt as TokenReceipt, leaf: stored.leaf };
    const data = art.job_data as JobData;
    const key = storage?.keyFromUrl(art.output_url);
    const file = key ? await storage!.get(key) : null;
    if (!file) throw conflict(`the artwork file of token ${tokenId} cannot be read`, { code: 'ARTWORK_MISSING' });
    const connector = String((art.output_metadata as { connector?: unknown } | null)?.connector ?? data.workflow.type);
    const procedural = connector === 'procedural';
    const workflow = await store.findWorkflow(data.workflow.id);
    const fair: FairSeed | undefined = data.fairSeed;
    const requested = data.requestedVariables ?? {};
    // As resolveVariables reads it: a blank seed is none; a collection variable named seed is a variable.
    const seedOverridden =
      requested.seed !== undefined &&
      requested.seed !== null &&
      !(typeof requested.seed === 'string' && requested.seed.trim() === '') &&
      !loadGenerationDataSafe(c.data)?.variables.some((v) => v.name === 'seed');
    const chooser: Chooser = data.chooser ?? 'owner';
    const choosers = choosersOf(data.variables, requested, chooser);
    const definitions = loadGenerationDataSafe(c.data);
    const receipt: TokenReceipt = {
      version: 1,
      collection: { id: c.id, chain_id: c.chain_id, address: c.contract_address?.toLowerCase() ?? null },
      token_id: tokenId,
      seed: {
        value: fair && !seedOverridden ? fair.seed : null,
        word: data.seed,
        chosen_by: seedOverridden ? 'owner' : 'platform',
        inputs: fair
          ? {
              commitment: fair.commitment,
              chain_id: fair.chain_id,
              collection: fair.collection,
              token_id: fair.token_id,
              block_hash: fair.block_hash,
              block_number: fair.block_number,
            }
          : null,
      },
      variables: Object.entries(data.variables).map(([name, value]) => {
        const def = definitions?.variables.find((v) => v.name === name);
        const by = choosers[name] ?? 'platform';
        const options =
          by === 'platform' && def && def.value.length > 0 ? def.value.map((o) => ({ value: o.value, weight: o.weight })) : null;
        return { name, value, chosen_by: by, ...(options ? { options } : {}) };
      }),
      ...(data.dealt ? { deck: data.dealt } : {}),
      prompt: data.steps.at(-1)?.nodePayload.intent ?? '',
      steps: data.steps.map((s) => ({
        id: s.id,
        node_name: s.nodeName,
        prompt: s.nodePayload.intent,
        seed: s.nodePayload.seed ?? data.seed,
        ...(typeof s.nodePayload.width === 'number' ? { width: s.nodePayload.width } : {}),
        ...(typeof s.nodePayload.height === 'number' ? { height: s.nodePayload.height } : {}),
        reference_images: data.referenceImages.map((r) => ({ name: r.name, url: r.url })),
      })),
      workflow: {
        id: data.workflow.id,
        name: data.workflow.name,
        type: data.workflow.type,
        definition_sha256: workflow ? workflowDefinitionSha256(workflow) : null,
      },
      connector: { name: connector, models: data.workflow.models, version: procedural ? `sharp ${sharp.versions.sharp}` : null },
      renderer_version: procedural ? PROCEDURAL_RENDERER_VERSION : null,
      output: {
        url: art.output_url,
        mime_type: file.contentType ?? null,
        sha256: sha256(file.bytes),
        pixels_sha256: procedural ? await pixelsSha256(file.bytes) : null,
      },
    };
    const kept = await store.storeReceipt({ outputId: art.output_id, collectionId: c.id, tokenId, receipt, leaf: receiptLeaf(receipt) });
    return { receipt: kept.receipt as TokenReceipt, leaf: kept.leaf };
  }

  return {
    /** GET /collections/:id/tokens/:tokenId/receipt: 404 unknown token, 409 ARTWORK_PENDING before it completes. */
    async receipt(collectionId: string, tokenId: number): Promise<TokenReceipt> {
      const c = await store.getCollection(collectionId);
      const r = await build(c, tokenId);
      if (!r) throw conflict(`token ${tokenId}'s artwork is not complete yet: its receipt follows it`, { code: 'ARTWORK_PENDING' });
      return r.receipt;
    },

    /** Merkle root of the receipts once every token (max supply) is minted and generated; null before. */
    async merkleRoot(c: CollectionRow): Promise<{ root: Hex; tokens: number } | null> {
      const supply = c.max_supply ?? c.editions;
      if (!supply || c.tokens_minted < supply) return null;
      const ids = await store.mintedTokenIds(c.id);
      if (ids.length < supply) return null;
      const leaves: Hex[] = [];
      for (const id of ids) {
        const r = await build(c, id);
        if (!r) return null;
        leaves.push(r.leaf as Hex);
      }
      const root = merkleRootOf(leaves);
      return root ? { root, tokens: ids.length } : null;
    },
  };
}
