/** Route preconditions shared by the content plugins. */
import type { FastifyRequest } from 'fastify';
import { requireUser } from '../plugins/auth.ts';

/** 401 before validation: a caller without user_id learns that first (docs/api/content.md §5.1). */
export const needUser = async (req: FastifyRequest) => {
  requireUser(req);
};
