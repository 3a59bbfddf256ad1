/**
 * Concept expansion through any OpenAI-compatible chat API (OpenAI, vLLM, Ollama, llama.cpp
 * server) with JSON-schema structured output. The answer is validated before use: a model that
 * returns something else is an upstream error, never a corrupt collection.
 */
import { z } from 'zod';
import { AppError } from '../../domain/errors.ts';
import { normalizeGenerationData } from '../../domain/generation-data.ts';
import type { ConceptExpander, ConceptRequest, GeneratedCollection } from './types.ts';

const answerSchema = z.object({
  title: z.string().min(1).max(200),
  description: z.string().max(5000),
  prompt: z.string().min(1).max(5000),
  variables: z
    .array(
      z.object({
        name: z.string().regex(/^[a-z_][a-z0-9_]*$/),
        feature_name: z.string().min(1).max(100),
        options: z
          .array(z.object({ value: z.string().min(1), weight: z.number().positive() }))
          .min(2)
          .max(12),
      }),
    )
    .min(1)
    .max(8),
});

/** The JSON schema sent to the model; mirrors answerSchema. */
export const ANSWER_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'description', 'prompt', 'variables'],
  properties: {
    title: { type: 'string' },
    description: { type: 'string' },
    prompt: { type: 'string', description: 'image prompt referencing every variable as $name' },
    variables: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'feature_name', 'options'],
        properties: {
          name: { type: 'string', description: 'snake_case identifier' },
          feature_name: { type: 'string' },
          options: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['value', 'weight'],
              properties: { value: { type: 'string' }, weight: { type: 'number' } },
            },
          },
        },
      },
    },
  },
} as const;

const SYSTEM = `You design generative NFT collections. Given a concept, answer with a title, a
short description, an image prompt that references every variable as $name, and 3 to 5 trait
variables, each with 3 to 6 options weighted so that some are rare.`;

export interface OpenAiChatOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}

export class OpenAiConceptExpander implements ConceptExpander {
  readonly kind = 'openai' as const;
  constructor(private readonly opts: OpenAiChatOptions) {}

  async expand(req: ConceptRequest): Promise<GeneratedCollection> {
    const base = this.opts.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    const user = req.style ? `Concept: ${req.concept}\nStyle preferences: ${req.style}` : `Concept: ${req.concept}`;
    let res: Response;
    try {
      res = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.opts.model,
          messages: [
            { role: 'system', content: SYSTEM },
            { role: 'user', content: user },
          ],
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'collection', strict: true, schema: ANSWER_JSON_SCHEMA },
          },
        }),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 60_000),
      });
    } catch (err) {
      throw new AppError('upstream', `language model unreachable: ${(err as Error).message}`);
    }
    const body = (await res.json().catch(() => null)) as {
      choices?: Array<{ message?: { content?: string | null; refusal?: string | null } }>;
      error?: { message?: string };
    } | null;
    if (!res.ok) throw new AppError('upstream', `language model error ${res.status}: ${body?.error?.message ?? 'no detail'}`);
    const message = body?.choices?.[0]?.message;
    if (message?.refusal) throw new AppError('upstream', `language model refused: ${message.refusal}`);
    let parsed: z.infer<typeof answerSchema>;
    try {
      parsed = answerSchema.parse(JSON.parse(message?.content ?? ''));
    } catch {
      throw new AppError('upstream', 'language model answered with JSON that does not match the collection schema');
    }
    const data = normalizeGenerationData({
      version: 'v2',
      steps: [{ id: 1, nodeName: 'image', nodePayload: { intent: parsed.prompt } }],
      variables: parsed.variables.map((v) => ({
        name: v.name,
        is_feature: true,
        feature_name: v.feature_name,
        is_selectable: true,
        value: v.options.map((o) => ({ value: o.value, display_name: o.value, weight: o.weight })),
      })),
    });
    return { title: parsed.title, description: parsed.description, prompt: parsed.prompt, variables: data.variables, data };
  }
}
