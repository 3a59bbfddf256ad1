/**
 * Variable resolution for a generation job (docs/api/nft.md §2.3): picks a value for every
 * variable (override, caller-supplied social picture, or a weighted seeded pick), derives the
 * traits, substitutes `$name` references into step intents and resolves step image fields.
 * Pure: no I/O, no clock, no Math.random — the same data, overrides and seed give the same result.
 */
import {
  BLANK_IMAGE,
  REF_IMAGE_NAMES,
  SOCIAL_PFP,
  isBlankImage,
  type GenerationData,
  type Step,
  type Variable,
} from './generation-data.ts';

/** Longest accepted override value; longer ones are almost surely a mistake (or an inline image). */
export const MAX_VALUE_LENGTH = 2048;

export type VariableErrorCode =
  | 'INVALID_VALUE'
  | 'REQUIRED'
  | 'NOT_A_PRESET'
  | 'NO_OPTIONS'
  | 'INVALID_SEED'
  | 'UNKNOWN_REFERENCE'
  | 'NOT_CHOOSABLE';

/** A client (or collection-data) mistake; `field` names the offending input, e.g. `variables.color`. */
export class VariableError extends Error {
  readonly field: string;
  readonly code: VariableErrorCode;
  constructor(field: string, code: VariableErrorCode, message: string) {
    super(message);
    this.name = 'VariableError';
    this.field = field;
    this.code = code;
  }
}

// ---------------------------------------------------------------------------------------------
// Seeded PRNG
// ---------------------------------------------------------------------------------------------

/** FNV-1a over UTF-16 code units, finished with a murmur3-style avalanche so near strings differ. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return avalanche(h);
}

function avalanche(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Combines a seed with a sub-stream label (variable name, step id) into an independent seed. */
export function deriveSeed(seed: number, label: string | number): number {
  return avalanche((seed ^ hashString(String(label))) + 0x9e3779b9);
}

/** mulberry32: a tiny 32-bit generator, good enough for picking presets and drawing shapes. */
export function createRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Turns a caller's seed into an unsigned 32-bit integer. Integers in [0, 2^32) (also as decimal
 * strings) are used as they are, so a seed shown to a user reproduces the same picks; anything
 * else (words, hashes, big numbers) is hashed.
 */
export function normalizeSeed(seed: string | number, field = 'seed'): number {
  if (typeof seed === 'number') {
    if (!Number.isFinite(seed)) throw new VariableError(field, 'INVALID_SEED', `${field} must be a finite number or a string`);
    if (Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff) return seed;
    return hashString(String(seed));
  }
  if (typeof seed !== 'string' || seed.length === 0 || seed.length > 256) {
    throw new VariableError(field, 'INVALID_SEED', `${field} must be a number or a non-empty string of at most 256 characters`);
  }
  if (/^\d{1,10}$/.test(seed)) {
    const n = Number(seed);
    if (n <= 0xffffffff) return n;
  }
  return hashString(seed);
}

/** Index of a weighted pick. Negative or non-finite weights count as 0; all-zero → uniform. */
export function weightedIndex(weights: readonly number[], r: number): number {
  if (weights.length === 0) throw new Error('weightedIndex: no options');
  const w = weights.map((x) => (Number.isFinite(x) && x > 0 ? x : 0));
  const total = w.reduce((a, b) => a + b, 0);
  if (total <= 0) return Math.min(weights.length - 1, Math.floor(r * weights.length));
  let target = r * total;
  let last = 0;
  for (let i = 0; i < w.length; i++) {
    if (w[i]! <= 0) continue;
    last = i;
    if (target < w[i]!) return i;
    target -= w[i]!;
  }
  return last; // floating-point leftovers land on the last option that can be picked
}

/**
 * The platform's pick of one variable: `options[weightedIndex(weights, mulberry32(deriveSeed(seed,
 * name))())]`, each variable its own stream. The one function both `resolveVariables` and
 * `atelier verify` (src/verify) use, so a receipt's pick is recomputed exactly as it was made.
 */
export function pickPreset<T extends { value: string; weight: number }>(seed: number, name: string, options: readonly T[]): string {
  const rng = createRng(deriveSeed(seed >>> 0, name));
  return options[
    weightedIndex(
      options.map((o) => o.weight),
      rng(),
    )
  ]!.value;
}

// ---------------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------------

export interface Trait {
  trait_type: string;
  value: string;
}

export interface ResolvedVariables {
  /** One entry per variable of the collection (never unknown override keys). */
  values: Record<string, string>;
  traits: Trait[];
  /** The effective seed as an unsigned 32-bit integer. */
  seed: number;
}

export interface ResolveOptions {
  seed: string | number;
  /** The creator's (sample) or minter's (mint) profile picture; fills `social_pfp` unless overridden. */
  socialPfp?: string | null;
  /**
   * Samples (docs/api/nft.md §4.1.2: omitted or empty variables are picked from the presets): a
   * required customizable variable left out is resolved like any other instead of refused;
   * `required` binds the minter (§2.3).
   */
  requiredMayBeOmitted?: boolean;
}

const IMAGE_VARIABLES: ReadonlySet<string> = new Set([SOCIAL_PFP, ...REF_IMAGE_NAMES]);

/**
 * Reads one override: undefined, null and blank strings mean "not supplied" (an empty form field);
 * finite numbers and booleans are accepted as their string form; anything else is an error.
 */
function readOverride(name: string, raw: unknown): string | undefined {
  const field = `variables.${name}`;
  if (raw === undefined || raw === null) return undefined;
  let s: string;
  if (typeof raw === 'string') s = raw;
  else if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'boolean') s = String(raw);
  else throw new VariableError(field, 'INVALID_VALUE', `${field} must be a string`);
  if (s.trim() === '') return undefined;
  if (s.length > MAX_VALUE_LENGTH) {
    throw new VariableError(field, 'INVALID_VALUE', `${field} is longer than ${MAX_VALUE_LENGTH} characters`);
  }
  return s;
}

function describeOptions(v: Variable): string {
  const shown = v.value.slice(0, 10).map((o) => JSON.stringify(o.value));
  return shown.join(', ') + (v.value.length > 10 ? `, … (${v.value.length} in all)` : '');
}

/**
 * Picks a value for every variable of `data`.
 *
 * - An override (from `overrides[name]`) wins. A variable that is not user-customizable accepts
 *   only one of its preset values; a customizable one accepts any string.
 * - A required customizable variable must be supplied (unless `requiredMayBeOmitted`: samples).
 * - `social_pfp`: override, else `opts.socialPfp`, else the blank placeholder (never a random pick).
 * - Otherwise a weighted pick from the presets. Each variable draws from its own stream derived
 *   from (seed, variable name), so overriding one variable never changes another's pick.
 * - `overrides.seed`, when present, replaces `opts.seed`. Other unknown keys are ignored.
 *
 * Traits come only from `is_feature` variables, in variable order: trait_type is the feature name,
 * value the option's display name when the value is a preset, else the value itself. A feature whose
 * value is empty or a blank image gives no trait (an empty attribute means nothing to a viewer).
 */
export function resolveVariables(data: GenerationData, overrides: Record<string, unknown>, opts: ResolveOptions): ResolvedVariables {
  const over = overrides ?? {};
  const seedInput = over.seed;
  let seed: number;
  // A blank seed is no seed (an empty form field), as for every other override.
  const blankSeed = typeof seedInput === 'string' && seedInput.trim() === '';
  if (seedInput !== undefined && seedInput !== null && !blankSeed && !data.variables.some((v) => v.name === 'seed')) {
    if (typeof seedInput !== 'string' && typeof seedInput !== 'number') {
      throw new VariableError('variables.seed', 'INVALID_SEED', 'variables.seed must be a number or a string');
    }
    seed = normalizeSeed(seedInput, 'variables.seed');
  } else {
    seed = normalizeSeed(opts.seed, 'seed');
  }

  const values: Record<string, string> = {};
  const traits: Trait[] = [];
  for (const v of data.variables) {
    const field = `variables.${v.name}`;
    const supplied = Object.prototype.hasOwnProperty.call(over, v.name) ? readOverride(v.name, over[v.name]) : undefined;
    let value: string;
    if (supplied !== undefined) {
      if (!v.is_user_customizable && !v.value.some((o) => o.value === supplied)) {
        throw new VariableError(
          field,
          'NOT_A_PRESET',
          v.value.length === 0
            ? `${field} has no preset values, so it cannot be set`
            : `${field} must be one of the preset values: ${describeOptions(v)}`,
        );
      }
      value = supplied;
    } else if (v.name === SOCIAL_PFP) {
      value = opts.socialPfp && opts.socialPfp.trim() !== '' ? opts.socialPfp : BLANK_IMAGE;
    } else if (v.is_user_customizable && v.required && !opts.requiredMayBeOmitted) {
      throw new VariableError(field, 'REQUIRED', `${field} is required: supply a value`);
    } else if (v.value.length === 0) {
      if (!v.is_user_customizable) {
        throw new VariableError(field, 'NO_OPTIONS', `${field} has no preset values to pick from`);
      }
      value = IMAGE_VARIABLES.has(v.name) ? BLANK_IMAGE : '';
    } else {
      value = pickPreset(seed, v.name, v.value);
    }
    values[v.name] = value;

    if (v.is_feature && value.trim() !== '' && !isBlankImage(value)) {
      const preset = v.value.find((o) => o.value === value);
      traits.push({ trait_type: v.feature_name || v.name, value: preset ? preset.display_name : value });
    }
  }
  return { values, traits, seed };
}

// ---------------------------------------------------------------------------------------------
// Intents and steps
// ---------------------------------------------------------------------------------------------

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Replaces `$name` and `${name}` references by their values in one pass (a value that itself
 * contains `$x` is not substituted again). Names are tried longest first, so `$color_2` is never
 * read as `$color` followed by `_2`; like the legacy behaviour, `$colors` with only `color` defined
 * reads as `$color` + `s`. Unknown references stay as written. Blank images substitute as ''.
 */
export function substituteIntent(intent: string, values: Record<string, string>): string {
  const names = Object.keys(values).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  if (names.length === 0) return intent;
  const alt = names.map(escapeRegExp).join('|');
  const re = new RegExp(`\\$\\{(${alt})\\}|\\$(${alt})`, 'g');
  return intent.replace(re, (_m, braced: string | undefined, bare: string | undefined) => {
    const v = values[(braced ?? bare)!]!;
    return isBlankImage(v) ? '' : v;
  });
}

export interface ReferenceImage {
  /** Variable name: `ref_image_1`..`ref_image_5` or `social_pfp`. */
  name: string;
  url: string;
}

export interface ResolvedSteps {
  /** Steps with intents substituted, image fields resolved (null when blank) and seeds filled. */
  steps: Step[];
  /** Non-blank reference images, ref_image_1..5 then social_pfp, for the renderer. */
  referenceImages: ReferenceImage[];
}

const REFERENCE_RE = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/;

function resolveImageField(raw: string | null, values: Record<string, string>, field: string): string | null {
  if (isBlankImage(raw)) return null;
  const m = REFERENCE_RE.exec(raw!.trim());
  if (!m) return raw; // a literal URL
  const name = m[1]!;
  if (!Object.prototype.hasOwnProperty.call(values, name)) {
    throw new VariableError(field, 'UNKNOWN_REFERENCE', `${field} references $${name}, which is not a variable of this collection`);
  }
  const v = values[name]!;
  return isBlankImage(v) ? null : v;
}

/**
 * Applies resolved values to the collection's steps. When `seed` is given, steps without their
 * own seed get one derived from (seed, step id) — distinct per step, stable across retries.
 */
export function resolveSteps(data: GenerationData, values: Record<string, string>, seed?: number): ResolvedSteps {
  const steps = data.steps.map((s, i): Step => {
    const base = `steps[${i}].nodePayload`;
    return {
      id: s.id,
      nodeName: s.nodeName,
      nodePayload: {
        ...s.nodePayload,
        intent: substituteIntent(s.nodePayload.intent, values),
        user_image: resolveImageField(s.nodePayload.user_image, values, `${base}.user_image`),
        optional_ref_image: resolveImageField(s.nodePayload.optional_ref_image, values, `${base}.optional_ref_image`),
        seed: s.nodePayload.seed ?? (seed === undefined ? null : deriveSeed(seed, `step:${s.id}`)),
      },
    };
  });
  const referenceImages: ReferenceImage[] = [];
  for (const name of [...REF_IMAGE_NAMES, SOCIAL_PFP]) {
    const v = values[name];
    if (v !== undefined && !isBlankImage(v)) referenceImages.push({ name, url: v });
  }
  return { steps, referenceImages };
}
