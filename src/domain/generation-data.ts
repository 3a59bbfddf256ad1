/**
 * Generation data v2 (docs/api/nft.md §2.2–2.3): the schema a client may send, and the one
 * normalized shape the rest of the code works with. Pure: no I/O.
 */
import { z } from 'zod';

/** A blank image placeholder: the image node skips it (§2.3 rules 2 and 3). */
export const BLANK_IMAGE = 'blank://placeholder';
export const SOCIAL_PFP = 'social_pfp';
export const REF_IMAGE_NAMES = ['ref_image_1', 'ref_image_2', 'ref_image_3', 'ref_image_4', 'ref_image_5'] as const;

const option = z.object({
  value: z.string(),
  display_name: z.string().optional(),
  weight: z.number().nonnegative().finite().optional(),
  /** `distribution: "exact"`: how many tokens get this preset (docs/fairness.md "Exact counts"). */
  count: z.number().int().nonnegative().optional(),
});

/** Design-stage form: parallel arrays. */
const columnarValue = z
  .object({
    display_names: z.array(z.string()).optional(),
    values: z.array(z.string()),
    weights: z.array(z.number().nonnegative().finite()).optional(),
    counts: z.array(z.number().int().nonnegative()).optional(),
  })
  .refine((v) => !v.display_names || v.display_names.length === v.values.length, {
    message: 'display_names must have as many entries as values',
    path: ['display_names'],
  })
  .refine((v) => !v.weights || v.weights.length === v.values.length, {
    message: 'weights must have as many entries as values',
    path: ['weights'],
  })
  .refine((v) => !v.counts || v.counts.length === v.values.length, {
    message: 'counts must have as many entries as values',
    path: ['counts'],
  });

export const variableInput = z.object({
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'variable names are letters, digits and underscores, not starting with a digit'),
  type: z.literal('pick').default('pick'),
  value_type: z.literal('strings').default('strings'),
  is_feature: z.boolean().default(false),
  feature_name: z.string().max(100).optional(),
  is_selectable: z.boolean().default(false),
  is_user_customizable: z.boolean().default(false),
  required: z.boolean().default(false),
  value: z.union([z.array(option), columnarValue]).default([]),
  lock_value: z.boolean().optional(),
  test_value: z.string().nullable().optional(),
});

export const stepInput = z.object({
  id: z.number().int().nonnegative(),
  nodeName: z.string().min(1).max(100),
  nodePayload: z
    .object({
      intent: z.string().max(10_000),
      user_image: z.string().nullable().optional(),
      optional_ref_image: z.string().nullable().optional(),
      seed: z.number().int().nullable().optional(),
    })
    .catchall(z.unknown()),
});

export const generationDataInput = z.object({
  version: z.literal('v2'),
  steps: z.array(stepInput).max(50).default([]),
  generations: z
    .object({
      hashes: z.array(z.string()).default([]),
      generations: z.number().int().nonnegative().default(0),
      use_custom_hashes: z.boolean().default(false),
    })
    .default({ hashes: [], generations: 0, use_custom_hashes: false }),
  variables: z.array(variableInput).max(200).default([]),
  /**
   * `weighted` (default): each token's picks are drawn by weight. `exact`: each preset's `count`
   * tokens get it, dealt from a shuffled deck at the reveal (docs/fairness.md "Exact counts").
   */
  distribution: z.enum(['weighted', 'exact']).optional(),
  /** `exact` only: combinations that never appear, e.g. `[{"$metal": "gold", "$bg": "red"}]`. */
  exclusions: z.array(z.record(z.string(), z.string())).max(100).optional(),
});

export type GenerationDataInput = z.input<typeof generationDataInput>;

export interface VariableOption {
  value: string;
  display_name: string;
  weight: number;
  /** `distribution: "exact"` only. */
  count?: number;
}

export interface Variable {
  name: string;
  type: 'pick';
  value_type: 'strings';
  is_feature: boolean;
  feature_name: string;
  is_selectable: boolean;
  is_user_customizable: boolean;
  required: boolean;
  value: VariableOption[];
  lock_value?: boolean;
  test_value?: string | null;
}

export interface Step {
  id: number;
  nodeName: string;
  nodePayload: {
    intent: string;
    user_image: string | null;
    optional_ref_image: string | null;
    seed: number | null;
    [key: string]: unknown;
  };
}

export interface GenerationData {
  version: 'v2';
  steps: Step[];
  generations: { hashes: string[]; generations: number; use_custom_hashes: boolean };
  variables: Variable[];
  distribution?: 'weighted' | 'exact';
  /** Keys without their `$`. */
  exclusions?: Array<Record<string, string>>;
}

function normalizeOptions(value: z.infer<typeof variableInput>['value']): VariableOption[] {
  if (Array.isArray(value)) {
    return value.map((o) => ({
      value: o.value,
      display_name: o.display_name ?? o.value,
      weight: o.weight ?? 1,
      ...(o.count !== undefined ? { count: o.count } : {}),
    }));
  }
  return value.values.map((v, i) => ({
    value: v,
    display_name: value.display_names?.[i] ?? v,
    weight: value.weights?.[i] ?? 1,
    ...(value.counts?.[i] !== undefined ? { count: value.counts[i] } : {}),
  }));
}

function placeholder(name: string): Variable {
  return {
    name,
    type: 'pick',
    value_type: 'strings',
    is_feature: false,
    feature_name: name,
    is_selectable: false,
    is_user_customizable: true,
    required: false,
    value: [{ value: BLANK_IMAGE, display_name: 'blank', weight: 1 }],
  };
}

/**
 * Parses already-validated input into the one normalized form: option lists (never parallel
 * arrays), every default filled, `social_pfp` always present and customizable, `ref_image_1..5`
 * present with a blank default. Throws a ZodError naming the field on bad input.
 */
export function normalizeGenerationData(input: unknown): GenerationData {
  const parsed = generationDataInput.parse(input);
  const seen = new Set<string>();
  const variables: Variable[] = [];
  for (const v of parsed.variables) {
    if (seen.has(v.name)) {
      throw new z.ZodError([{ code: 'custom', path: ['variables'], message: `variable "${v.name}" is defined twice`, input: v.name }]);
    }
    seen.add(v.name);
    variables.push({
      name: v.name,
      type: 'pick',
      value_type: 'strings',
      is_feature: v.is_feature,
      feature_name: v.feature_name ?? v.name,
      is_selectable: v.is_selectable,
      is_user_customizable: v.is_user_customizable,
      required: v.is_user_customizable ? v.required : false,
      value: normalizeOptions(v.value),
      ...(v.lock_value !== undefined ? { lock_value: v.lock_value } : {}),
      ...(v.test_value !== undefined ? { test_value: v.test_value } : {}),
    });
  }
  for (const name of [SOCIAL_PFP, ...REF_IMAGE_NAMES]) {
    const existing = variables.find((v) => v.name === name);
    if (!existing) variables.push(placeholder(name));
    else if (name === SOCIAL_PFP) existing.is_user_customizable = true; // rule 2: always customizable
    if (existing && existing.value.length === 0) existing.value = placeholder(name).value;
  }
  return {
    version: 'v2',
    steps: parsed.steps.map((s) => ({
      id: s.id,
      nodeName: s.nodeName,
      nodePayload: {
        ...s.nodePayload,
        intent: s.nodePayload.intent,
        user_image: s.nodePayload.user_image ?? null,
        optional_ref_image: s.nodePayload.optional_ref_image ?? null,
        seed: s.nodePayload.seed ?? null,
      },
    })),
    generations: parsed.generations,
    variables,
    ...(parsed.distribution ? { distribution: parsed.distribution } : {}),
    ...(parsed.exclusions
      ? { exclusions: parsed.exclusions.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k.replace(/^\$/, ''), v]))) }
      : {}),
  };
}

export function isBlankImage(value: string | null | undefined): boolean {
  return value === undefined || value === null || value === '' || value === BLANK_IMAGE;
}
