/**
 * Exact trait counts (docs/fairness.md "Exact counts"): a collection with `distribution: "exact"`
 * gives each preset of each platform-picked variable a `count`; the counts of a variable sum to
 * the editions; `exclusions` name combinations that never appear. Before the sale the platform
 * deals the ordered deck of combinations from a seed and publishes keccak256 of it (the provenance
 * hash); at the reveal a block hash after the last mint gives the starting offset that assigns
 * deck positions to token ids. Pure formulas shared by the platform and `atelier verify`.
 */
import { encodePacked, keccak256, toBytes, type Hex } from 'viem';
import { REF_IMAGE_NAMES, SOCIAL_PFP, type GenerationData } from './generation-data.ts';
import { canonicalJson, type DealtPosition } from './receipt.ts';

export type { DealtPosition };

/** A mistake in a collection's exact counts; `field` names it (`data.variables[0].value[1].count`). */
export class ExactCountsError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'ExactCountsError';
    this.field = field;
  }
}

/** What the deck is dealt from, as published in contractURI `fairness.exact`: canonical and complete. */
export interface ExactSpec {
  editions: number;
  /** The counted variables, in the collection's variable order; presets in their order. */
  variables: Array<{ name: string; presets: Array<{ value: string; count: number }> }>;
  /** Each rule: variable name → value; a deck entry matching every pair of a rule is excluded. */
  exclusions: Array<Record<string, string>>;
}

/** One deck entry: the value of each counted variable. */
export type DeckEntry = Record<string, string>;

/** Never counted: the minter's picture and the creator's reference images (not platform picks). */
const UNCOUNTED: ReadonlySet<string> = new Set([SOCIAL_PFP, ...REF_IMAGE_NAMES]);

export const isExact = (data: Pick<GenerationData, 'distribution'> | null | undefined) => data?.distribution === 'exact';

/**
 * The exact spec of `data` for `editions` tokens, or null for a weighted collection. Throws
 * ExactCountsError naming the field: a counted variable without a count on every preset, counts
 * that do not sum to the editions, a selectable or customizable variable (a minter's choice would
 * break the counts), an exclusion naming an unknown variable or value, and exclusions the deck
 * cannot satisfy (found by dealing it once with a fixed seed, `tryDeal`).
 */
export function exactSpecOf(data: GenerationData, editions: number): ExactSpec | null {
  if (!isExact(data)) {
    if (data.exclusions?.length) throw new ExactCountsError('data.exclusions', 'exclusions need "distribution": "exact"');
    return null;
  }
  const variables: ExactSpec['variables'] = [];
  data.variables.forEach((v, i) => {
    if (UNCOUNTED.has(v.name)) return;
    const at = `data.variables[${i}]`;
    if (v.is_selectable || v.is_user_customizable) {
      throw new ExactCountsError(
        `${at}.${v.is_selectable ? 'is_selectable' : 'is_user_customizable'}`,
        `"${v.name}": an exact collection's variables are all dealt by the platform, so a minter may not choose one`,
      );
    }
    if (v.value.length === 0) throw new ExactCountsError(`${at}.value`, `"${v.name}" has no presets to count`);
    const presets = v.value.map((o, j) => {
      if (o.count === undefined) throw new ExactCountsError(`${at}.value[${j}].count`, `"${v.name}" preset "${o.value}" needs a count`);
      return { value: o.value, count: o.count };
    });
    if (new Set(presets.map((p) => p.value)).size !== presets.length) {
      throw new ExactCountsError(`${at}.value`, `"${v.name}" has the same preset value twice`);
    }
    const sum = presets.reduce((a, p) => a + p.count, 0);
    if (sum !== editions) {
      throw new ExactCountsError(`${at}.value`, `the counts of "${v.name}" sum to ${sum}, not to the ${editions} editions`);
    }
    variables.push({ name: v.name, presets });
  });
  if (variables.length === 0) throw new ExactCountsError('data.variables', 'an exact collection needs at least one counted variable');
  // Dealing is synchronous, one keccak draw per edition per counted variable: bounded so that a
  // deal stays well under a second (measured in docs/fairness.md "Exact counts").
  if (editions * variables.length > MAX_EXACT_CELLS) {
    throw new ExactCountsError(
      'editions',
      `an exact collection deals at most ${MAX_EXACT_CELLS} trait values (editions × counted variables); ${editions} × ${variables.length} = ${editions * variables.length}`,
    );
  }
  const exclusions = (data.exclusions ?? []).map((rule, k) => {
    const names = Object.keys(rule);
    if (names.length === 0) throw new ExactCountsError(`data.exclusions[${k}]`, 'an exclusion names at least one variable');
    for (const name of names) {
      const field = `data.exclusions[${k}].$${name}`;
      const v = variables.find((x) => x.name === name);
      if (!v) throw new ExactCountsError(field, `"${name}" is not a counted variable of this collection`);
      if (!v.presets.some((p) => p.value === rule[name])) throw new ExactCountsError(field, `"${rule[name]}" is not a preset of "${name}"`);
    }
    return Object.fromEntries(names.sort().map((n) => [n, rule[n]!]));
  });
  const spec: ExactSpec = { editions, variables, exclusions };
  // Without exclusions every shuffle is a deck: only exclusions need the trial deal.
  if (exclusions.length > 0 && tryDeal(spec, DEAL_CHECK_SEED) === null) {
    throw new ExactCountsError('data.exclusions', 'no deck satisfies these counts and exclusions (the repair found no swap)');
  }
  return spec;
}

/**
 * What an exact deck depends on in `data` (the distribution, each counted variable's name and
 * presets with their counts, in order, and the exclusions), as a string: two data with the same
 * shape deal the same deck and resolve the same dealt values.
 */
export function dealtShapeOf(data: GenerationData): string {
  return canonicalJson({
    distribution: data.distribution ?? null,
    variables: data.variables
      .filter((v) => !UNCOUNTED.has(v.name))
      .map((v) => ({ name: v.name, presets: v.value.map((o) => ({ value: o.value, count: o.count ?? null })) })),
    exclusions: data.exclusions ?? [],
  });
}

/** At most this many trait values (editions × counted variables) per exact collection. */
export const MAX_EXACT_CELLS = 5_000;

/** The seed the create/update check deals with (any fixed seed: the check is that a deck exists). */
const DEAL_CHECK_SEED = `0x${'00'.repeat(32)}` as Hex;

/** Seeds tried in turn before giving up (a tight set of exclusions can fail for one shuffle). */
export const DEAL_ATTEMPTS = 8;

/** deckSeed = keccak256(abi.encodePacked("atelier.exact-deck", bytes32 secret, uint256 attempt)). */
export function deckSeed(secret: Hex, attempt: number): Hex {
  return keccak256(encodePacked(['string', 'bytes32', 'uint256'], ['atelier.exact-deck', secret, BigInt(attempt)]));
}

/**
 * keccak256 in counter mode: draw k of stream `label` is
 * uint256(keccak256(abi.encodePacked(bytes32 seed, string label, uint256 k))), k = 0, 1, 2, …
 */
export function keccakStream(seed: Hex, label: string): (bound: number) => number {
  let k = 0n;
  return (bound: number) => {
    const r = BigInt(keccak256(encodePacked(['bytes32', 'string', 'uint256'], [seed, label, k++])));
    // r mod bound: bound ≤ 2^32, so the bias is below 2^-224.
    return Number(r % BigInt(bound));
  };
}

const matches = (entry: DeckEntry, rule: Record<string, string>) => Object.entries(rule).every(([n, v]) => entry[n] === v);
const excluded = (entry: DeckEntry, rules: ExactSpec['exclusions']) => rules.some((r) => matches(entry, r));

/**
 * One dealing attempt; null when the exclusion repair finds no swap.
 *
 * 1. For each counted variable (spec order), its column is every preset repeated `count` times in
 *    preset order, shuffled by Fisher–Yates (i = n-1 … 1, j = draw(i+1) of stream `var:<name>`).
 *    Entry i of the deck is row i of the columns.
 * 2. Repair: for i = 0 … n-1, while entry i matches an exclusion rule: for j = i+1, i+2, … (wrapping,
 *    skipping i) and each variable of the first matching rule (in rule key order), swap that
 *    variable's values of entries i and j when afterwards neither matches any rule; the first such
 *    swap is made. A swap within a column keeps every count; each one removes at least one excluded
 *    entry and adds none, so the repair ends. No swap for some i → null.
 */
export function tryDeal(spec: ExactSpec, seed: Hex): DeckEntry[] | null {
  const n = spec.editions;
  const deck: DeckEntry[] = Array.from({ length: n }, () => ({}));
  for (const v of spec.variables) {
    const column = v.presets.flatMap((p) => Array<string>(p.count).fill(p.value));
    const draw = keccakStream(seed, `var:${v.name}`);
    for (let i = n - 1; i > 0; i--) {
      const j = draw(i + 1);
      [column[i], column[j]] = [column[j]!, column[i]!];
    }
    column.forEach((value, i) => {
      deck[i]![v.name] = value;
    });
  }
  for (let i = 0; i < n; i++) {
    while (excluded(deck[i]!, spec.exclusions)) {
      const rule = spec.exclusions.find((r) => matches(deck[i]!, r))!;
      let fixed = false;
      for (let step = 1; step < n && !fixed; step++) {
        const j = (i + step) % n;
        for (const name of Object.keys(rule)) {
          const a = { ...deck[i]!, [name]: deck[j]![name]! };
          const b = { ...deck[j]!, [name]: deck[i]![name]! };
          if (!excluded(a, spec.exclusions) && !excluded(b, spec.exclusions)) {
            deck[i] = a;
            deck[j] = b;
            fixed = true;
            break;
          }
        }
      }
      if (!fixed) return null;
    }
  }
  return deck;
}

/** The deck of a collection whose secret is `secret`: the first of DEAL_ATTEMPTS seeds that deals. */
export function dealDeck(spec: ExactSpec, secret: Hex): DeckEntry[] {
  for (let attempt = 0; attempt < DEAL_ATTEMPTS; attempt++) {
    const deck = tryDeal(spec, deckSeed(secret, attempt));
    if (deck) return deck;
  }
  throw new ExactCountsError('data.exclusions', `no deck satisfies these counts and exclusions after ${DEAL_ATTEMPTS} seeds`);
}

/** provenance = keccak256(utf8(canonicalJson(deck))): the ordered deck, keys sorted, no whitespace. */
export const provenanceHashOf = (deck: readonly DeckEntry[]): Hex => keccak256(toBytes(canonicalJson(deck)));

/** offset = uint256(blockHash) mod editions. */
export const revealOffsetOf = (blockHash: Hex, editions: number): number => Number(BigInt(blockHash) % BigInt(editions));

/** Token t's deck position: (t - 1 + offset) mod editions. */
export const deckPositionOf = (tokenId: number, offset: number, editions: number): number => (tokenId - 1 + offset) % editions;
