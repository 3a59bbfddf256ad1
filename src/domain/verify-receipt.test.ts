import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Hex } from 'viem';
import { commitmentOf, fairSeedOf } from './fair-seed.ts';
import { normalizeGenerationData } from './generation-data.ts';
import type { TokenReceipt } from './receipt.ts';
import { deriveSeed, pickPreset, resolveVariables } from './variables.ts';
import { dealDeck, deckPositionOf, provenanceHashOf, type ExactSpec } from './exact-deck.ts';
import { checkDealt, checkExactDeck, checkReceipt, checkReveal, type ChainFacts, type PublishedExact } from './verify-receipt.ts';

const secret = `0x${'ab'.repeat(32)}` as Hex;
const blockHash = `0x${'cd'.repeat(32)}` as Hex;
const collection = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const options = [
  { value: 'gold', weight: 1 },
  { value: 'grey', weight: 3 },
  { value: 'blue', weight: 2 },
];

function receipt(tokenId = 3): TokenReceipt {
  const fair = fairSeedOf({ secret, chainId: 31337, collection, tokenId, blockHash, blockNumber: 12 });
  return {
    version: 1,
    collection: { id: 'c', chain_id: 31337, address: collection },
    token_id: tokenId,
    seed: {
      value: fair.seed,
      word: fair.seed_word,
      chosen_by: 'platform',
      inputs: {
        commitment: fair.commitment,
        chain_id: 31337,
        collection: fair.collection,
        token_id: tokenId,
        block_hash: blockHash,
        block_number: 12,
      },
    },
    variables: [
      { name: 'fur', value: pickPreset(fair.seed_word, 'fur', options), chosen_by: 'platform', options },
      { name: 'color', value: 'red', chosen_by: 'minter' },
    ],
    prompt: 'p',
    steps: [{ id: 1, node_name: 'image', prompt: 'p', seed: deriveSeed(fair.seed_word, 'step:1'), reference_images: [] }],
    workflow: { id: 'w', name: 'procedural', type: 'basic', definition_sha256: null },
    connector: { name: 'procedural', models: [], version: null },
    renderer_version: 'atelier-procedural/1',
    output: { url: 'http://x/files/a.png', mime_type: 'image/png', sha256: '00', pixels_sha256: '00' },
  };
}

const facts = (over: Partial<ChainFacts> = {}): ChainFacts => ({
  chainId: 31337,
  collection,
  commitment: commitmentOf(secret),
  secret,
  mint: { blockNumber: 12, blockHash },
  canonicalBlockHash: blockHash,
  ...over,
});

describe('verify: one receipt against the chain', () => {
  test('a receipt the platform built checks out; a minter choice is a note', () => {
    const r = checkReceipt(3, receipt(), facts());
    assert.deepEqual(r.differences, []);
    assert.deepEqual(r.notes, ['color chosen by minter']);
  });

  test('a changed platform pick, a different block, another token id and a wrong seed each differ', () => {
    const r = receipt();
    const other = options.find((o) => o.value !== r.variables[0]!.value)!.value;
    r.variables[0]!.value = other;
    assert.match(checkReceipt(3, r, facts()).differences.join('\n'), /variable fur is "/);

    const otherHash = `0x${'ef'.repeat(32)}` as Hex;
    const moved = checkReceipt(3, receipt(), facts({ mint: { blockNumber: 13, blockHash: otherHash }, canonicalBlockHash: otherHash }));
    assert.match(moved.differences.join('\n'), /block_number is 12, expected 13/);
    assert.match(moved.differences.join('\n'), /block_hash/);

    assert.match(checkReceipt(4, receipt(), facts()).differences.join('\n'), /token_id is 3, expected 4/);
    const wrong = receipt();
    wrong.seed.value = `0x${'01'.repeat(32)}`;
    assert.ok(checkReceipt(3, wrong, facts()).differences.some((d) => d.startsWith('seed ')));
    assert.match(checkReceipt(3, receipt(), facts({ mint: null })).differences.join('\n'), /no mint/);
  });

  test('before the reveal the seed is not recomputed (a note), the picks still are', () => {
    const r = checkReceipt(3, receipt(), facts({ secret: null }));
    assert.deepEqual(r.differences, []);
    assert.ok(r.notes.includes('seed not recomputed: the secret is not revealed yet'));
  });

  test('the reveal must match the commitment', () => {
    assert.equal(checkReveal(commitmentOf(secret), secret), null);
    assert.equal(checkReveal(commitmentOf(secret), null), null);
    assert.match(checkReveal(commitmentOf(secret), blockHash) ?? '', /is not the commitment/);
    assert.match(checkReveal(`0x${'0'.repeat(64)}`, null) ?? '', /no seed commitment/);
  });

  test('pickPreset is the pick resolveVariables makes', () => {
    const data = normalizeGenerationData({
      version: 'v2',
      steps: [],
      variables: [{ name: 'fur', value: options.map((o) => ({ ...o, display_name: o.value })) }],
    });
    for (let seed = 0; seed < 50; seed++) {
      assert.equal(resolveVariables(data, {}, { seed }).values.fur, pickPreset(seed, 'fur', options));
    }
  });
});

describe('exact counts: the deck, the offset and each dealt token', () => {
  const spec: ExactSpec = {
    editions: 12,
    variables: [
      {
        name: 'metal',
        presets: [
          { value: 'gold', count: 6 },
          { value: 'iron', count: 6 },
        ],
      },
    ],
    exclusions: [],
  };
  const deck = dealDeck(spec, secret);
  const provenance = provenanceHashOf(deck);
  const offsetHash = `0x${'00'.repeat(31)}11` as Hex; // 17 mod 12 = 5
  const published: PublishedExact = { provenance_hash: provenance, offset: 5, offset_block: 13, spec };

  test('a published deck that recomputes, and an offset from the block after the last mint, check out', () => {
    const r = checkExactDeck(published, provenance, secret, { blockHash: offsetHash, lastMintBlock: 12 });
    assert.deepEqual(r.differences, []);
    assert.deepEqual(r.deck, deck);
  });

  test('another provenance on chain, another secret, a wrong offset or an offset block that is not the next one differ', () => {
    const other = `0x${'99'.repeat(32)}` as Hex;
    assert.equal(checkExactDeck(published, other, secret).differences.length, 2);
    assert.match(checkExactDeck(published, provenance, other).differences.join(), /recomputed deck hash/);
    assert.match(
      checkExactDeck({ ...published, offset: 4 }, provenance, secret, { blockHash: offsetHash, lastMintBlock: 12 }).differences.join(),
      /offset is 4/,
    );
    assert.match(
      checkExactDeck(published, provenance, secret, { blockHash: offsetHash, lastMintBlock: 10 }).differences.join(),
      /offset_block is 13/,
    );
    assert.deepEqual(checkExactDeck(published, provenance, null).notes, ['deck not recomputed: the secret is not revealed yet']);
  });

  test("a token's dealt value must be its position's; a platform pick of a counted variable is refused", () => {
    const position = deckPositionOf(2, 5, 12);
    const dealt = (value: string, chosen_by: 'deck' | 'platform' = 'deck'): TokenReceipt => ({
      ...receipt(2),
      variables: [{ name: 'metal', value, chosen_by }],
      deck: { position, offset: 5, offset_block: 13, provenance_hash: provenance },
    });
    const right = deck[position]!.metal!;
    const wrong = right === 'gold' ? 'iron' : 'gold';
    assert.deepEqual(checkDealt(2, dealt(right), published, deck), []);
    assert.match(checkDealt(2, dealt(wrong), published, deck).join(), /variable metal/);
    assert.match(checkDealt(2, dealt(right, 'platform'), published, deck).join(), /not dealt from the deck/);
    assert.match(checkDealt(3, dealt(right), published, deck).join(), /deck position/);
  });
});
