/**
 * The embedded concept expander: no model, no network. It builds a plausible collection from the
 * concept with a fixed vocabulary and a PRNG seeded by the concept, so the same concept always
 * gives the same definition (tests and offline demos rely on that).
 */
import { createHash } from 'node:crypto';
import { normalizeGenerationData } from '../../domain/generation-data.ts';
import type { ConceptExpander, ConceptRequest, GeneratedCollection } from './types.ts';

interface Theme {
  name: string;
  feature: string;
  phrase: (ref: string) => string;
  options: string[];
}

const THEMES: Theme[] = [
  {
    name: 'style',
    feature: 'Style',
    phrase: (r) => `${r} rendering`,
    options: ['watercolor', 'oil painting', 'ink sketch', 'pixel art', 'paper cut-out', 'isometric 3D', 'risograph print'],
  },
  {
    name: 'palette',
    feature: 'Palette',
    phrase: (r) => `${r} palette`,
    options: ['neon', 'pastel', 'monochrome', 'earthy', 'golden hour', 'vaporwave', 'ice blue'],
  },
  {
    name: 'mood',
    feature: 'Mood',
    phrase: (r) => `${r} mood`,
    options: ['serene', 'mysterious', 'playful', 'melancholic', 'triumphant', 'dreamy'],
  },
  {
    name: 'setting',
    feature: 'Setting',
    phrase: (r) => `set in a ${r}`,
    options: ['city rooftop', 'deep forest', 'ocean shore', 'desert dune', 'space station', 'night market'],
  },
  {
    name: 'time_of_day',
    feature: 'Time of day',
    phrase: (r) => `at ${r}`,
    options: ['dawn', 'noon', 'dusk', 'midnight'],
  },
];

/** Rarity ladder: the first option is common, the last rare. */
const WEIGHTS = [40, 25, 15, 10, 6, 4];

function prng(seedText: string) {
  let s = createHash('sha256').update(seedText).digest().readUInt32LE(0) || 1;
  return () => {
    // xorshift32: small, deterministic, good enough for picking vocabulary.
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x1_0000_0000;
  };
}

function shuffle<T>(items: T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function titleCase(text: string): string {
  const small = new Set(['a', 'an', 'the', 'of', 'in', 'on', 'at', 'and', 'or', 'for', 'to', 'with']);
  return text
    .split(' ')
    .map((w, i) => (i > 0 && small.has(w.toLowerCase()) ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(' ');
}

export class OfflineConceptExpander implements ConceptExpander {
  readonly kind = 'offline' as const;

  async expand(req: ConceptRequest): Promise<GeneratedCollection> {
    const concept = req.concept.replace(/\s+/g, ' ').trim();
    const style = req.style?.replace(/\s+/g, ' ').trim();
    const rand = prng(`${concept}\u0000${style ?? ''}`);
    const themes = shuffle(THEMES, rand).slice(0, 4);
    const variables = themes.map((theme) => {
      let options = shuffle(theme.options, rand).slice(0, 5);
      // A stated style preference becomes the most common style.
      if (theme.name === 'style' && style) options = [style, ...options.filter((o) => o !== style)].slice(0, 5);
      return {
        name: theme.name,
        type: 'pick' as const,
        value_type: 'strings' as const,
        is_feature: true,
        feature_name: theme.feature,
        is_selectable: true,
        is_user_customizable: false,
        required: false,
        value: options.map((o, i) => ({ value: o, display_name: titleCase(o), weight: WEIGHTS[i] ?? 1 })),
      };
    });
    const prompt = [concept, ...themes.map((t) => t.phrase(`$${t.name}`))].join(', ');
    const title = titleCase(concept.length > 60 ? `${concept.slice(0, 57).trim()}…` : concept);
    const description = `A generative collection of ${concept}. Each token draws its ${themes
      .map((t) => t.feature.toLowerCase())
      .join(', ')} from weighted options, so rarer combinations make rarer pieces.`;
    const data = normalizeGenerationData({
      version: 'v2',
      steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: prompt, user_image: null, optional_ref_image: null, seed: null } }],
      generations: { hashes: [], generations: 0, use_custom_hashes: false },
      variables,
    });
    return { title, description, prompt, variables: data.variables, data };
  }
}
