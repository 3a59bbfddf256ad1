/**
 * The OpenAPI document of an app (/openapi.json) and Swagger UI (/docs), generated from the
 * routes' zod schemas by @fastify/swagger through fastify-type-provider-zod.
 *
 * Examples: a zod schema carries its example as `.meta({ example })` (schemas/examples.ts
 * `withExample`), next to the schema it illustrates. The document shows, for each operation, one
 * complete example of the request body, of each path and query parameter and of each 2xx JSON
 * answer, composed from those (exampleOf below): an envelope `{data, error: null}` around a record
 * needs no example of its own. test/openapi-docs.test.ts sends every example to the app and parses
 * every answer example with the route's zod schema.
 *
 * Public routes (`config.public`) carry `security: []`, so /docs shows them without a lock.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { webhooksSection } from '../schemas/webhook-events.ts';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { API_TAGS } from './api-tags.ts';

type Io = 'input' | 'output';
type Def = Record<string, any> & { type: string };
type Json = Record<string, unknown>;

const isZod = (s: unknown): s is z.ZodType => typeof s === 'object' && s !== null && '_zod' in s;

const metaExample = (schema: z.ZodType) => (z.globalRegistry.get(schema) as { example?: unknown } | undefined)?.example;
const isOptional = (schema: z.ZodType, io: Io) => (io === 'input' ? schema._zod.optin : schema._zod.optout) === 'optional';

/**
 * The example written on `schema` or on what it wraps (optional, nullable, default, a pipe's side):
 * never one made up from its type. What an optional field or parameter shows.
 */
export function ownExample(schema: z.ZodType, io: Io): unknown {
  for (let s: unknown = schema, depth = 0; isZod(s) && depth < 20; depth++) {
    const example = metaExample(s);
    if (example !== undefined) return example;
    const def = s._zod.def as unknown as Def;
    s = def.type === 'pipe' ? (io === 'input' ? def.in : def.out) : def.innerType;
  }
  return undefined;
}

/**
 * An example of `schema` as a client sends it (`input`) or receives it (`output`): the schema's
 * own `example` meta, else one built from its parts — an object from its fields' examples (an
 * optional field only with an example of its own; a required one without one leaves the object
 * without an example), an array of its element's example, null for a nullable without one, an
 * enum's first value, a literal. A string, number or boolean without an example has none: the
 * result is undefined, and the test names the operation.
 */
export function exampleOf(schema: z.ZodType, io: Io, depth = 0): unknown {
  const own = metaExample(schema);
  if (own !== undefined) return own;
  if (depth > 20) return undefined;
  const def = schema._zod.def as unknown as Def;
  const inner = (s: unknown) => (isZod(s) ? exampleOf(s, io, depth + 1) : undefined);
  switch (def.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const shape = def.shape as Record<string, z.ZodType>;
      for (const [key, field] of Object.entries(shape)) {
        const optional = isOptional(field, io);
        const value = optional ? ownExample(field, io) : inner(field);
        if (value !== undefined) out[key] = value;
        else if (!optional) return undefined;
      }
      // An object whose every field was left out says nothing: it needs an example of its own.
      return Object.keys(out).length > 0 || Object.keys(shape).length === 0 ? out : undefined;
    }
    case 'array': {
      const element = inner(def.element);
      return element === undefined ? undefined : [element];
    }
    case 'nullable':
      return inner(def.innerType) ?? null;
    case 'null':
      return null;
    case 'optional':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
    case 'prefault':
      return inner(def.innerType);
    case 'default':
      return inner(def.innerType) ?? (io === 'output' ? def.defaultValue : undefined);
    case 'pipe':
      return inner(io === 'input' ? def.in : def.out);
    case 'lazy':
      return inner(def.getter());
    case 'enum':
      return Object.values(def.entries as Record<string, unknown>)[0];
    case 'literal':
      return (def.values as unknown[])[0];
    case 'union':
      for (const option of def.options as z.ZodType[]) {
        const value = inner(option);
        if (value !== undefined) return value;
      }
      return undefined;
    case 'intersection': {
      const left = inner(def.left);
      const right = inner(def.right);
      return left !== undefined && right !== undefined ? { ...(left as object), ...(right as object) } : undefined;
    }
    default:
      return undefined;
  }
}

/** The fields of an object schema (through refinements, pipes, optional and default wrappers). */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  const def = schema._zod.def as unknown as Def;
  if (def.type === 'object') return def.shape;
  if (def.type === 'pipe') return shapeOf(def.in);
  if (isZod(def.innerType)) return shapeOf(def.innerType);
  return {};
}

/** Removes the `example` zod put on the schema's parts: the whole example below replaces them. */
function dropPartExamples(json: unknown) {
  if (typeof json !== 'object' || json === null) return;
  const node = json as Json;
  delete node.example;
  for (const child of Object.values((node.properties as Json | undefined) ?? {})) dropPartExamples(child);
  for (const key of ['items', 'additionalProperties', 'not']) dropPartExamples(node[key]);
  for (const key of ['anyOf', 'oneOf', 'allOf']) for (const child of (node[key] as unknown[] | undefined) ?? []) dropPartExamples(child);
}

/**
 * One whole example for a body, an answer or a parameter. @fastify/swagger moves a one-entry
 * `examples` to the media type (body, answer) or to the parameter, where /docs shows it.
 */
function putExample(json: unknown, example: unknown) {
  if (example === undefined || typeof json !== 'object' || json === null) return;
  dropPartExamples(json);
  (json as Json).examples = [example];
}

type TransformArgs = Parameters<typeof jsonSchemaTransform>[0];

/** fastify-type-provider-zod's transform, plus one composed example per body, parameter and 2xx answer. */
function transformWithExamples(args: TransformArgs) {
  const result = jsonSchemaTransform(args);
  const source = args.schema as Record<string, unknown> | undefined;
  const out = result.schema as Record<string, any> | undefined;
  if (!source || !out || out.hide) return result;
  if (isZod(source.body)) putExample(out.body, exampleOf(source.body, 'input'));
  for (const part of ['params', 'querystring', 'headers'] as const) {
    const zodPart = source[part];
    const properties = out[part]?.properties as Record<string, unknown> | undefined;
    if (!isZod(zodPart) || !properties) continue;
    const shape = shapeOf(zodPart);
    for (const [name, json] of Object.entries(properties)) {
      const field = shape[name];
      // An optional parameter shows only an example of its own: no made-up filter in "Try it out".
      if (field) putExample(json, isOptional(field, 'input') ? ownExample(field, 'input') : exampleOf(field, 'input'));
    }
  }
  const responses = (source.response ?? {}) as Record<string, unknown>;
  for (const [status, schema] of Object.entries(responses)) {
    if (/^2\d\d$/.test(status) && isZod(schema)) putExample(out.response?.[status], exampleOf(schema, 'output'));
  }
  return result;
}

/** One documented operation: its method, its path as the document writes it, its zod schemas. */
export interface DocumentedRoute {
  method: string;
  path: string;
  schema: FastifySchema;
  public: boolean;
}

const documented = new WeakMap<FastifyInstance, DocumentedRoute[]>();

/** The routes `app`'s document was built from, with their zod schemas (what the docs test parses examples with). */
export function documentedRoutes(app: FastifyInstance): readonly DocumentedRoute[] {
  return documented.get(app) ?? [];
}

/** `/files/*` and `/x/:id` as the document writes them: `/files/{*}`, `/x/{id}`. */
const documentPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{*}');

/**
 * The Content-Security-Policy of the Swagger UI pages (`/docs/*`). The one style hash is the
 * inline style Swagger UI 5 injects at start (chromium names it when it is missing).
 */
export const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; form-action 'self'; frame-ancestors 'none'; " +
  "img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; " +
  "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

export async function installOpenApi(app: FastifyInstance, info: { title: string; description: string }) {
  const routes: DocumentedRoute[] = [];
  documented.set(app, routes);
  app.addHook('onRoute', (route) => {
    // Documentation is public.
    if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), public: true };
    const isPublic = Boolean((route.config as { public?: boolean } | undefined)?.public);
    // Public routes need no credentials: the OpenAPI document says so (no lock in /docs).
    if (isPublic) route.schema = { ...(route.schema ?? {}), security: [] };
    const schema = route.schema as (FastifySchema & { hide?: boolean }) | undefined;
    if (!schema || schema.hide) return;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, path: documentPath(route.url), schema, public: isPublic });
    }
  });
  await app.register(swagger, {
    openapi: {
      info: { ...info, version: '0.1.0' },
      tags: [...API_TAGS],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description:
              'The service key (API_KEY), a user API key (atk_…, POST /api/keys) or a session token (ats_…, Sign-In with Ethereum).',
          },
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: "A user's JWT, or any credential of X-API-Key as a Bearer token.",
          },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
    transform: transformWithExamples,
    transformObject: (documents) =>
      'openapiObject' in documents ? withWebhooks(withUsedTagsOnly(documents.openapiObject)) : documents.swaggerObject,
  });
  // The docs share the admin proxy's origin with the console, whose tab holds the operator's key:
  // scripts from this origin only, no inline code, nothing from outside (no validator badge).
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', validatorUrl: null },
    staticCSP: DOCS_CSP,
  });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}

/**
 * The document lists only the tags its operations use: both apps share API_TAGS, and a tag no
 * operation of this app carries would be an empty section in its /docs.
 */
export function withUsedTagsOnly<T extends { paths?: object; tags?: Array<{ name: string }> }>(doc: T): T {
  const used = new Set<string>();
  for (const methods of Object.values(doc.paths ?? {}))
    for (const op of Object.values((methods ?? {}) as Record<string, { tags?: string[] }>))
      for (const tag of (op && typeof op === 'object' && Array.isArray(op.tags) ? op.tags : []) as string[]) used.add(tag);
  return { ...doc, tags: (doc.tags ?? []).filter((t) => used.has(t.name)) };
}

/**
 * An app that manages webhook subscriptions documents what they deliver: the OpenAPI 3.1
 * `webhooks` section, one POST per event with its payload's JSON Schema (schemas/webhook-events.ts).
 */
export function withWebhooks<T extends { openapi?: string; tags?: Array<{ name: string }> }>(doc: T): T {
  if (!(doc.tags ?? []).some((t) => t.name === 'webhooks')) return doc;
  return { ...doc, openapi: '3.1.0', webhooks: webhooksSection() };
}
