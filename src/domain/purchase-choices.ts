/**
 * The buyer's choices carried in a Purchase event's `data` (docs/minting.md "On-chain sale"):
 * UTF-8 JSON of an object {variableName: value} limited to the collection's selectable and
 * customizable variables. Anything else — not UTF-8, not JSON, not an object, larger than
 * MAX_CHOICES_BYTES, a name or value PostgreSQL cannot store (a NUL or an unpaired surrogate,
 * which JSON escapes carry through JSON.parse), or a variable the buyer may not choose — is not
 * used: the platform draws every variable, and the status says why. A reason never quotes such a
 * character: the follower stores it. Pure.
 */
import { REF_IMAGE_NAMES, SOCIAL_PFP } from './generation-data.ts';
import { isStorableText } from './text.ts';

export const MAX_CHOICES_BYTES = 2048;

/** Never a buyer's: the creator's reference images (as on every mint path) and the minter's profile picture, which the platform fills. */
const NOT_THE_BUYERS: ReadonlySet<string> = new Set([...REF_IMAGE_NAMES, SOCIAL_PFP]);

export type ChoicesStatus = 'none' | 'buyer' | 'invalid' | 'oversized';

export interface ChoosableVariable {
  name: string;
  is_selectable?: boolean;
  is_user_customizable?: boolean;
}

const UNSTORABLE = 'a NUL character or an unpaired surrogate';

/** A name as a JSON string writes it, without the quotes: NUL and an unpaired surrogate become escapes (`\u0000`, `\ud800`). */
const escaped = (name: string) => JSON.stringify(name).slice(1, -1);

export function parseChoices(
  dataHex: string,
  variables: readonly ChoosableVariable[],
): { status: ChoicesStatus; choices: Record<string, unknown>; reason?: string } {
  const hex = dataHex.startsWith('0x') ? dataHex.slice(2) : dataHex;
  if (hex.length === 0) return { status: 'none', choices: {} };
  if (hex.length / 2 > MAX_CHOICES_BYTES) {
    return { status: 'oversized', choices: {}, reason: `data is ${hex.length / 2} bytes, more than ${MAX_CHOICES_BYTES}` };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(hex, 'hex'));
  } catch {
    return { status: 'invalid', choices: {}, reason: 'data is not UTF-8' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { status: 'invalid', choices: {}, reason: 'data is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { status: 'invalid', choices: {}, reason: 'data is not a JSON object' };
  }
  // Before any reason quotes a name: a NUL or an unpaired surrogate in a name or a value would
  // make the row that records the purchase unstorable (jsonb refuses both escapes).
  for (const [name, value] of Object.entries(parsed)) {
    if (!isStorableText(name)) {
      return { status: 'invalid', choices: {}, reason: `variables.${escaped(name)}: a variable name with ${UNSTORABLE}` };
    }
    if (typeof value === 'string' && !isStorableText(value)) {
      return { status: 'invalid', choices: {}, reason: `variables.${name}: a value with ${UNSTORABLE}` };
    }
  }
  const byName = new Map(variables.map((v) => [v.name, v]));
  for (const [name, value] of Object.entries(parsed)) {
    const v = byName.get(name);
    if (!v || !(v.is_selectable || v.is_user_customizable) || NOT_THE_BUYERS.has(name)) {
      return { status: 'invalid', choices: {}, reason: `variables.${name}: not a variable the buyer may choose` };
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return { status: 'invalid', choices: {}, reason: `variables.${name}: expected a string, number or boolean` };
    }
  }
  return Object.keys(parsed).length === 0
    ? { status: 'none', choices: {} }
    : { status: 'buyer', choices: parsed as Record<string, unknown> };
}
