/**
 * The shape of the admin proxy's forwarded operations (forwards.ts, forwards-views.ts) and the
 * helpers their entries share: how a call reaches the backend as its caller (`actingAs`), a parsed
 * query as a query string again, and the collection id every console view takes.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../domain/errors.ts';
import { exampleOf } from '../plugins/openapi.ts';
import { uuid } from '../schemas/common.ts';
import { EXAMPLE_ID, withExample } from '../schemas/examples.ts';

export type Input = Record<string, unknown>;

export interface BackendCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  query?: Record<string, string | readonly string[] | undefined>;
  /** The user an operator call acts for (user_id header); a user's call is always the user's own. */
  userId?: string | null;
  /** The Idempotency-Key header goes along. */
  idempotent?: boolean;
}

export interface Forward<I extends Input = Input> {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** Request schema: the body (POST/PUT) or the query string (GET). */
  input: z.ZodType<I>;
  backend: (input: I, req: FastifyRequest) => BackendCall;
  /** Success fields beside `success: true` (an object: its fields, documented with its example). */
  response: z.ZodRawShape | z.ZodObject;
  /** The fields from the backend's `data` (default: all of them). */
  answer?: (data: unknown) => Record<string, unknown>;
  status?: 200 | 201 | 202;
  /** Checked here before forwarding (so the status is not lost in forwarding). */
  check?: (input: I, req: FastifyRequest) => void;
}

/**
 * How a call reaches the backend for this caller: a signed-in user's with their own credential
 * (never the service key, never a user_id: the backend's policy must see the user, not the
 * operator); the operator's with the service key and the user it names.
 */
export function actingAs(req: FastifyRequest, operatorUserId?: string | null): { credential: string } | { userId: string | null } {
  if (req.caller.kind === 'user') {
    if (!req.auth.forwardCredential) throw new AppError('unauthorized', 'a user call without its credential');
    return { credential: req.auth.forwardCredential };
  }
  return { userId: operatorUserId === undefined ? req.auth.userId : operatorUserId };
}

/** A parsed query as the backend's query string again (numbers as text, arrays repeated). */
export const asQuery = (q: Record<string, unknown>): Record<string, string | string[] | undefined> =>
  Object.fromEntries(Object.entries(q).map(([k, v]) => [k, v === undefined ? undefined : Array.isArray(v) ? v.map(String) : String(v)]));

/** Typing help: each entry's functions see its own input type. */
export const forward = <I extends Input>(f: Forward<I>): Forward => f as unknown as Forward;

export const collectionId = withExample(uuid, EXAMPLE_ID.collection);
export const byCollection = z.object({ collectionId });
/** The example of a backend body, with the collection the admin proxy's body names. */
export const plusCollection = (body: z.ZodType) => ({
  example: { collectionId: EXAMPLE_ID.collection, ...(exampleOf(body, 'input') as object) },
});
