/**
 * What a public minter may choose (docs/fairness.md "Who chooses what"): only `is_selectable`
 * variables (one of their presets; `resolveVariables` checks the preset) and `is_user_customizable`
 * ones. Everything else — `seed`, a variable the platform picks, a name the collection does not
 * have, and the creator's reference images whatever their flags — is refused naming the field, so
 * nobody can ask for a rare trait or replay a seed seen in a sample. The owner and the operator
 * keep overrides (recorded as `chosen_by: owner`). Pure.
 */
import { REF_IMAGE_NAMES, type GenerationData } from './generation-data.ts';
import { VariableError } from './variables.ts';

/**
 * Who picked a variable's value, as a token's receipt records it. `deck`: an exact collection's
 * dealt value, the token's deck position (docs/fairness.md "Exact counts").
 */
export type Chooser = 'platform' | 'minter' | 'owner' | 'deck';

const CREATOR_ONLY: ReadonlySet<string> = new Set(REF_IMAGE_NAMES);

/** A value the resolver reads as "not supplied" (an empty form field): never a choice. */
const isBlank = (raw: unknown) => raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '');

/** Throws a VariableError (field `variables.<name>`) for the first key a public minter may not set. */
export function checkMinterChoices(data: GenerationData, variables: Record<string, unknown>): void {
  for (const [name, raw] of Object.entries(variables ?? {})) {
    const field = `variables.${name}`;
    const v = data.variables.find((x) => x.name === name);
    // The seed key is refused whatever its value: a blank-looking string is still a seed the
    // resolver would hash (a minter could search such strings for rare traits).
    if (!v && name === 'seed' && raw !== undefined && raw !== null) {
      throw new VariableError(field, 'NOT_CHOOSABLE', `${field}: a minter may not choose the seed (docs/fairness.md)`);
    }
    if (isBlank(raw)) continue;
    if (!v) {
      if (name === 'seed') throw new VariableError(field, 'NOT_CHOOSABLE', `${field}: a minter may not choose the seed (docs/fairness.md)`);
      throw new VariableError(field, 'NOT_CHOOSABLE', `${field}: this collection has no variable "${name}"`);
    }
    if (CREATOR_ONLY.has(name)) {
      throw new VariableError(field, 'NOT_CHOOSABLE', `${field}: the creator's reference images are never chosen by a minter`);
    }
    if (!v.is_selectable && !v.is_user_customizable) {
      throw new VariableError(field, 'NOT_CHOOSABLE', `${field}: picked by the platform, a minter may not choose it`);
    }
  }
}

/**
 * Who chose each resolved value: a key the request supplied (non-blank) was the requester's
 * (`minter` or `owner`); every other value was the platform's pick (or default).
 */
export function choosersOf(
  values: Record<string, string>,
  requested: Record<string, unknown>,
  requester: Chooser,
): Record<string, Chooser> {
  const out: Record<string, Chooser> = {};
  for (const name of Object.keys(values)) {
    const supplied = Object.prototype.hasOwnProperty.call(requested ?? {}, name) && !isBlank(requested[name]);
    out[name] = supplied ? requester : 'platform';
  }
  return out;
}
