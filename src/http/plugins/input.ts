/**
 * What every request's input must be before any handler sees it (DESIGN.md "Errors are part of
 * the API"): JSON no deeper than MAX_JSON_DEPTH, and no string — value or key, in the body, the
 * path or the query — holding a NUL character or an unpaired UTF-16 surrogate (PostgreSQL
 * refuses both in text and JSONB). Each refusal is a 400 naming the field. A JSON content type
 * with an empty body is read as "no body", which many HTTP clients send on bodiless POST/DELETE.
 */
import type { FastifyInstance } from 'fastify';
import { invalid } from '../../domain/errors.ts';

export const MAX_JSON_DEPTH = 64;

/** The first problem in `value`, as "<path>: <what>", or null. Stops at the depth limit. */
export function inputProblem(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return stringProblem(value, path);
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_JSON_DEPTH) return `${path}: JSON is nested deeper than ${MAX_JSON_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = inputProblem(value[i], `${path}.${i}`, depth + 1);
      if (p) return p;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value)) {
    // Prototype poisoning, refused as Fastify's own parser refuses it.
    if (key === '__proto__') return `${path}: the key "__proto__" is not allowed`;
    if (key === 'constructor' && v !== null && typeof v === 'object' && 'prototype' in v) {
      return `${path}.constructor: a "prototype" key is not allowed here`;
    }
    const keyProblem = stringProblem(key, `${path} key "${key.replace(/[^\x20-\x7e]/g, '?')}"`);
    if (keyProblem) return keyProblem;
    const p = inputProblem(v, `${path}.${key}`, depth + 1);
    if (p) return p;
  }
  return null;
}

function stringProblem(s: string, path: string): string | null {
  if (s.includes('\u0000')) return `${path}: contains a NUL character (\\u0000), which text fields cannot hold`;
  if (!s.isWellFormed()) return `${path}: contains an unpaired UTF-16 surrogate (not valid Unicode text)`;
  return null;
}

/** Replaces Fastify's JSON parser and checks path and query; call once on the root instance. */
export function installInputGuards(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return done(invalid(`body: malformed JSON (${(err as Error).message})`), undefined);
    }
    const problem = inputProblem(parsed, 'body');
    if (problem) return done(invalid(problem), undefined);
    done(null, parsed);
  });
  app.addHook('preValidation', async (request) => {
    const problem = inputProblem(request.params, 'path') ?? inputProblem(request.query, 'query');
    if (problem) throw invalid(problem);
  });
}
