/**
 * Response envelopes as zod schemas, so every route documents (and serializes through) its 2xx
 * shape: the backend's `{data, error: null}` and the admin proxy's `{success: true, …}`.
 */
import { z } from 'zod';

/** Backend success: `{data, error: null}`. */
export const envelope = <T extends z.ZodType>(data: T) => z.object({ data, error: z.null() });

/** Admin proxy success: `{success: true, …fields}`. */
export const adminSuccess = <T extends z.ZodRawShape>(shape: T) => z.object({ success: z.literal(true), ...shape });

/** A record presented by a mapper whose every field is not listed here: documented as an object. */
export const record = (description: string) => z.looseObject({}).describe(description);
