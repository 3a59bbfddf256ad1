import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { keccak256, toBytes, type Hex } from 'viem';
import {
  ExactCountsError,
  MAX_EXACT_CELLS,
  dealDeck,
  deckPositionOf,
  exactSpecOf,
  provenanceHashOf,
  revealOffsetOf,
  tryDeal,
  type DeckEntry,
} from './exact-deck.ts';
import { normalizeGenerationData } from './generation-data.ts';

function data(over: { counts?: number[]; exclusions?: unknown; bg?: Record<string, unknown>; distribution?: string } = {}) {
  return normalizeGenerationData({
    version: 'v2',
    distribution: over.distribution ?? 'exact',
    steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'a $metal ring on $bg' } }],
    variables: [
      {
        name: 'metal',
        is_feature: true,
        value: [
          { value: 'gold', count: over.counts?.[0] ?? 3 },
          { value: 'silver', count: over.counts?.[1] ?? 9 },
          { value: 'iron', count: over.counts?.[2] ?? 18 },
        ],
      },
      {
        name: 'bg',
        is_feature: true,
        value: { values: ['red', 'blue'], counts: [15, 15] },
        ...(over.bg ?? {}),
      },
    ],
    ...(over.exclusions !== undefined ? { exclusions: over.exclusions } : {}),
  });
}

const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ExactCountsError, String(e));
    assert.ok(e.message.startsWith(e.field), e.message);
    return e.field;
  }
  assert.fail('no error');
};

const tally = (deck: DeckEntry[], name: string) => {
  const out: Record<string, number> = {};
  for (const e of deck) out[e[name]!] = (out[e[name]!] ?? 0) + 1;
  return out;
};

const secret = `0x${'ab'.repeat(32)}` as Hex;

describe('exact counts: validation', () => {
  test('a weighted collection has no spec; exclusions need exact', () => {
    assert.equal(exactSpecOf(normalizeGenerationData({ version: 'v2' }), 10), null);
    assert.equal(
      fieldOf(() => exactSpecOf(data({ distribution: 'weighted', exclusions: [{ metal: 'gold' }] }), 30)),
      'data.exclusions',
    );
  });

  test('the canonical spec: counted variables in order, `$` dropped from exclusion keys, placeholders left out', () => {
    const spec = exactSpecOf(data({ exclusions: [{ $metal: 'gold', $bg: 'red' }] }), 30)!;
    assert.deepEqual(spec, {
      editions: 30,
      variables: [
        {
          name: 'metal',
          presets: [
            { value: 'gold', count: 3 },
            { value: 'silver', count: 9 },
            { value: 'iron', count: 18 },
          ],
        },
        {
          name: 'bg',
          presets: [
            { value: 'red', count: 15 },
            { value: 'blue', count: 15 },
          ],
        },
      ],
      exclusions: [{ bg: 'red', metal: 'gold' }],
    });
  });

  test('each mistake names its field', () => {
    assert.equal(
      fieldOf(() => exactSpecOf(data({ counts: [3, 9, 17] }), 30)),
      'data.variables[0].value',
    );
    assert.equal(
      fieldOf(() => exactSpecOf(data({ bg: { value: [{ value: 'red', count: 30 }, { value: 'blue' }] } }), 30)),
      'data.variables[1].value[1].count',
    );
    assert.equal(
      fieldOf(() => exactSpecOf(data({ bg: { is_selectable: true } }), 30)),
      'data.variables[1].is_selectable',
    );
    assert.equal(
      fieldOf(() => exactSpecOf(data({ bg: { is_user_customizable: true } }), 30)),
      'data.variables[1].is_user_customizable',
    );
    assert.equal(
      fieldOf(() => exactSpecOf(data({ exclusions: [{ $fur: 'gold' }] }), 30)),
      'data.exclusions[0].$fur',
    );
    assert.equal(
      fieldOf(() => exactSpecOf(data({ exclusions: [{ metal: 'bronze' }] }), 30)),
      'data.exclusions[0].$metal',
    );
    assert.equal(
      fieldOf(() => exactSpecOf(data({ exclusions: [{}] }), 30)),
      'data.exclusions[0]',
    );
  });

  test('editions × counted variables above MAX_EXACT_CELLS is refused naming editions; the cap itself is accepted', () => {
    const one = (editions: number) =>
      normalizeGenerationData({
        version: 'v2',
        distribution: 'exact',
        steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: 'a $metal ring' } }],
        variables: [
          {
            name: 'metal',
            value: [
              { value: 'gold', count: 1 },
              { value: 'iron', count: editions - 1 },
            ],
          },
        ],
      });
    assert.equal(exactSpecOf(one(MAX_EXACT_CELLS), MAX_EXACT_CELLS)?.editions, MAX_EXACT_CELLS);
    assert.throws(
      () => exactSpecOf(one(MAX_EXACT_CELLS + 1), MAX_EXACT_CELLS + 1),
      (e: unknown) => e instanceof ExactCountsError && e.field === 'editions' && /at most 5000/.test(e.message),
    );
    // Two counted variables: half the editions.
    const half = Math.floor(MAX_EXACT_CELLS / 2) + 1;
    assert.throws(
      () => exactSpecOf(data({ counts: [1, 1, half - 2], bg: { value: { values: ['red', 'blue'], counts: [1, half - 1] } } }), half),
      (e: unknown) => e instanceof ExactCountsError && e.field === 'editions',
    );
  });

  test('impossible exclusions are refused: 18 iron cannot all avoid both backgrounds, nor can 16 tokens fit one', () => {
    assert.equal(
      fieldOf(() => exactSpecOf(data({ exclusions: [{ metal: 'gold' }] }), 30)),
      'data.exclusions',
    );
    // iron (18) never on red leaves 15 blue slots for 18 iron tokens.
    assert.equal(
      fieldOf(() => exactSpecOf(data({ exclusions: [{ metal: 'iron', bg: 'red' }] }), 30)),
      'data.exclusions',
    );
  });
});

describe('exact counts: the deck', () => {
  const spec = exactSpecOf(data({ exclusions: [{ metal: 'gold', bg: 'red' }] }), 30)!;

  test('counts are exact and no excluded combination appears, for many seeds', () => {
    for (let s = 1; s <= 40; s++) {
      const deck = dealDeck(spec, `0x${s.toString(16).padStart(64, '0')}` as Hex);
      assert.equal(deck.length, 30);
      assert.deepEqual(tally(deck, 'metal'), { gold: 3, silver: 9, iron: 18 });
      assert.deepEqual(tally(deck, 'bg'), { red: 15, blue: 15 });
      assert.ok(!deck.some((e) => e.metal === 'gold' && e.bg === 'red'), `seed ${s}`);
    }
  });

  test('deterministic from the secret; another secret deals another order', () => {
    const a = dealDeck(spec, secret);
    assert.deepEqual(dealDeck(spec, secret), a);
    assert.equal(provenanceHashOf(dealDeck(spec, secret)), provenanceHashOf(a));
    assert.notEqual(provenanceHashOf(dealDeck(spec, `0x${'cd'.repeat(32)}` as Hex)), provenanceHashOf(a));
  });

  test('the provenance hash is keccak256 of the canonical JSON (keys sorted, no whitespace)', () => {
    assert.equal(provenanceHashOf([{ b: '2', a: '1' }]), provenanceHashOf([{ a: '1', b: '2' }]));
    assert.equal(provenanceHashOf([{ a: '1' }]), keccak256(toBytes('[{"a":"1"}]')));
  });

  test('a tight but satisfiable exclusion is repaired by swaps: with 12 red / 18 blue, iron takes exactly the blue slots', () => {
    const tight = exactSpecOf(
      data({ bg: { value: { values: ['red', 'blue'], counts: [12, 18] } }, exclusions: [{ metal: 'iron', bg: 'red' }] }),
      30,
    )!;
    const deck = dealDeck(tight, secret);
    assert.ok(deck.every((e) => (e.metal === 'iron') === (e.bg === 'blue')));
    // One shuffle alone almost never lands there: the swaps did it.
    assert.ok(!tryDeal({ ...tight, exclusions: [] }, secret)!.every((e) => (e.metal === 'iron') === (e.bg === 'blue')));
  });

  test('offset and positions: offset = uint256(hash) mod editions; token t → (t - 1 + offset) mod editions', () => {
    assert.equal(revealOffsetOf(`0x${'00'.repeat(31)}1f` as Hex, 30), 1);
    const off = revealOffsetOf(`0x${'ff'.repeat(32)}` as Hex, 30);
    assert.equal(off, Number((2n ** 256n - 1n) % 30n));
    const positions = Array.from({ length: 30 }, (_, i) => deckPositionOf(i + 1, 7, 30));
    assert.equal(positions[0], 7);
    assert.equal(positions[23], 0);
    assert.deepEqual(
      [...positions].sort((a, b) => a - b),
      Array.from({ length: 30 }, (_, i) => i),
    );
  });
});
