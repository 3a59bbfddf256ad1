/** The language model in use: an OpenAI-compatible chat API when configured, else offline. */
import type { Config } from '../../config.ts';
import { OfflineConceptExpander } from './offline.ts';
import { OpenAiConceptExpander } from './openai-chat.ts';
import type { ConceptExpander } from './types.ts';

export type { ConceptExpander, GeneratedCollection } from './types.ts';

/** What the concept expander reads from the configuration: the chat API, if any. */
export type ConceptExpanderOptions = Pick<Config, 'OPENAI_BASE_URL' | 'OPENAI_API_KEY' | 'OPENAI_CHAT_MODEL'>;

export function createConceptExpander(config: ConceptExpanderOptions): ConceptExpander {
  if (config.OPENAI_BASE_URL) {
    return new OpenAiConceptExpander({
      baseUrl: config.OPENAI_BASE_URL,
      apiKey: config.OPENAI_API_KEY,
      model: config.OPENAI_CHAT_MODEL,
    });
  }
  return new OfflineConceptExpander();
}
