/** Small helpers the content services share to apply domain/policy.ts to their records. */
import { unauthorized } from '../domain/errors.ts';
import { ownerFor, type Caller, type Ownership } from '../domain/policy.ts';

/** The ownership the policy needs: the record's owner and its collection's owner. */
export const ownership = (r: { user_id: string | null; collection_owner_id: string | null }): Ownership => ({
  ownerId: r.user_id,
  collectionOwnerId: r.collection_owner_id,
});

/** Outputs and decks belong to a user: the caller's, or the user a service call names (401 otherwise). */
export function requireOwner(caller: Caller): string {
  const userId = ownerFor(caller);
  if (!userId) throw unauthorized('user_id required: authenticate as a user, or send user_id with the service key');
  return userId;
}
