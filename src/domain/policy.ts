/**
 * Who may do what (DESIGN.md "Who may do what"; docs/permissions.md is the user-facing version).
 *
 * One table, actor × action → allowed, applied by the services before every write. Pure: the
 * services load the record and its collection's owner, then ask `authorize`.
 *
 * Actors, from the caller's point of view on one record:
 * - operator: the service key (or authentication switched off); may do everything;
 * - owner: the signed-in user the record belongs to;
 * - collection_owner: the signed-in owner of the collection a deck, output or job lives in;
 * - user: any other signed-in user;
 * - public: no credentials.
 * A record whose owner is null belongs to the platform: only the operator may change it.
 */
import { forbidden, unauthorized } from './errors.ts';

/** Who is calling, as the HTTP layer decided once per request. */
export type Caller =
  /** The service key (or ENABLE_AUTH=false); `userId` is the user it acts for, when named. */
  { kind: 'service'; userId: string | null } | { kind: 'user'; userId: string } | { kind: 'anonymous' };

export type Actor = 'operator' | 'owner' | 'collection_owner' | 'user' | 'public';

/** The owners that decide a caller's actor for one record (null: the platform). */
export interface Ownership {
  ownerId: string | null;
  /** Owner of the collection the record lives in, when it lives in one. */
  collectionOwnerId?: string | null;
}

const OPERATOR: readonly Actor[] = ['operator'];
const OWNERS: readonly Actor[] = ['operator', 'owner'];
const OWNERS_AND_CREATOR: readonly Actor[] = ['operator', 'owner', 'collection_owner'];
const SIGNED_IN: readonly Actor[] = ['operator', 'owner', 'collection_owner', 'user'];
const EVERYONE: readonly Actor[] = ['operator', 'owner', 'collection_owner', 'user', 'public'];

/**
 * The table. Reads listed here are those that depend on the record; every other read is open to
 * the callers the route admits (signed-in, or public for metadata and the feed).
 */
export const POLICY = {
  // Collections (docs/api/nft.md §2.1). Creating one makes the caller its owner.
  'collection.create': SIGNED_IN,
  'collection.update': OWNERS,
  'collection.reset': OWNERS,
  'collection.deploy': OWNERS,
  /** A record's deployment state (claim, release, write-back of a deployment made elsewhere) is the platform's. */
  'collection.record_deployment': OPERATOR,
  /** Marking a collection global (develop source) is the platform's decision. */
  'collection.set_global': OPERATOR,
  /** Owner-only mints; a public mint is decided by the collection's mint policy (services/minting). */
  'collection.mint': OWNERS,
  /** New artwork for a minted token (design-stage generate). */
  'token.regenerate': OWNERS,
  /** An output made a token's artwork at mint (outputId): its owner, or the collection's creator curating it. */
  'token.use_output': OWNERS_AND_CREATOR,
  /** Mint state (token id, tx hash) on a deck comes only from the mint path. */
  'token.set_mint_state': OPERATOR,
  /** Anyone signed in generates from a collection (charged credits); the output is theirs. */
  'collection.generate': SIGNED_IN,
  'collection.request_samples': SIGNED_IN,
  /** Requester wallets of samples: the collection owner and the operator. */
  'collection.read_sample_wallets': OWNERS,
  /**
   * Chain admin actions (POST /api/nft/admin) on the contract of a collection record: its owner
   * and the operator; a contract no record names, or a platform record's, is the operator's.
   */
  'collection.admin_action': OWNERS,
  /**
   * Naming any address as a deployed contract's owner(). Anyone else who may deploy names only a
   * wallet they proved (Sign-In with Ethereum) or the platform wallet: nobody is made the owner of
   * a contract they never asked for (`authorizeContractOwner`; docs/permissions.md).
   */
  'collection.name_any_contract_owner': OPERATOR,
  /** Publishing the collection's seed secret on chain (docs/fairness.md): its owner and the operator. */
  'collection.reveal_seed': OWNERS,
  /** The on-chain sale of a collection's contract (PUT /nft/collections/:id/sale). */
  'collection.sale': OWNERS,
  /** A content-addressed bundle (CAR) of a collection whose sale is closed (docs/permanence.md). */
  'collection.export': OWNERS,
  /** What the platform paid in gas for a collection's transactions (docs/collections.md "Gas spent"). */
  'collection.read_costs': OWNERS,
  /** Pointing the contract's URIs at the collection's bundle and freezing them (docs/permanence.md "Freezing"). */
  'collection.freeze': OWNERS,
  /** A collection contract deployed from raw parameters (POST /api/nft/collections): no record to own. */
  'collection.deploy_raw': OPERATOR,
  /** The platform contracts (factory, facets) of a chain (POST /api/nft/deploy). */
  'platform.deploy': OPERATOR,
  /** The platform wallet's balance per chain and its threshold (docs/operations.md "Wallet health"). */
  'platform.read_wallet_health': OPERATOR,

  /** Making a record for another user (`owner_user_id` naming someone else): the operator's. */
  'record.create_for_other': OPERATOR,

  // Decks (docs/api/content.md §2.2). A deck in someone's collection is the deck owner's, and the
  // collection's creator may curate it too.
  'deck.create': SIGNED_IN,
  'deck.update': OWNERS_AND_CREATOR,
  'deck.delete': OWNERS_AND_CREATOR,
  'deck.publish': OWNERS_AND_CREATOR,
  'deck.lock': OWNERS_AND_CREATOR,
  'deck.add_output': OWNERS_AND_CREATOR,

  // Outputs (docs/api/content.md §2.1).
  'output.create': SIGNED_IN,
  'output.complete': OWNERS_AND_CREATOR,
  'output.fail': OWNERS_AND_CREATOR,
  'output.hide': OWNERS_AND_CREATOR,
  'output.move': OWNERS_AND_CREATOR,
  'output.read_hidden': OWNERS_AND_CREATOR,
  'output.develop': OWNERS_AND_CREATOR,

  // Jobs (docs/api/content.md §2.4): their owner sees and retries them; the failsafes are the
  // delivery path's (the operator).
  'job.read': OWNERS,
  'job.retry': OWNERS,
  'job.force_complete': OPERATOR,
  'job.force_fail': OPERATOR,

  // Workflows: the platform's catalogue.
  'workflow.create': OPERATOR,
  'workflow.test': SIGNED_IN,

  // Uploads: for oneself; for a miniapp user or fid only that user or the operator.
  'upload.create': SIGNED_IN,
  'upload.for_other': OPERATOR,

  // Custodial collections are made by the platform for a social identity.
  'custodial.create': SIGNED_IN,

  // Identity (docs/api/content.md §2.8): a merge moves every record of one user to another.
  'user.merge': OPERATOR,
  /** Linking a wallet proven by Sign-In with Ethereum to the caller (docs/auth.md "Wallets"). */
  'wallet.link': SIGNED_IN,
  /** Signing in with a wallet (Sign-In with Ethereum): the signature is the credential. */
  'wallet.sign_in': EVERYONE,
  /** Whether a user credential is valid and whose (the admin proxy's question, docs/auth.md). */
  'credential.introspect': OPERATOR,
  /** Ending a platform session (sign-out): its user, with the session itself. */
  'session.revoke': OWNERS,
  /** A user's own API keys; the key's owner (or the operator) revokes it. */
  'api_key.create': SIGNED_IN,
  'api_key.revoke': OWNERS,

  // Outbound webhooks (docs/webhooks.md): the operator's subscriptions are the platform's (every
  // collection's events); a user's see the events of their own records.
  'webhook.create': SIGNED_IN,
  'webhook.read': OWNERS,
  'webhook.manage': OWNERS,

  // Public documents.
  'metadata.read': EVERYONE,
} as const satisfies Record<string, readonly Actor[]>;

export type Action = keyof typeof POLICY;
export const ACTIONS = Object.keys(POLICY) as Action[];

/** The caller's actor for one record (or for no record: operator, user or public). */
export function actorOf(caller: Caller, record?: Ownership): Actor {
  if (caller.kind === 'service') return 'operator';
  if (caller.kind === 'anonymous') return 'public';
  if (!record) return 'user';
  // A platform record (no owner) has no owner and no curator: only the operator changes it.
  if (record.ownerId === null) return 'user';
  if (record.ownerId === caller.userId) return 'owner';
  if (record.collectionOwnerId && record.collectionOwnerId === caller.userId) return 'collection_owner';
  return 'user';
}

export function can(caller: Caller, action: Action, record?: Ownership): boolean {
  return (POLICY[action] as readonly Actor[]).includes(actorOf(caller, record));
}

/** Why a refused caller was refused, in words a user can act on. */
export function refusal(caller: Caller, action: Action, record?: Ownership): string {
  const allowed = POLICY[action] as readonly Actor[];
  if (caller.kind === 'anonymous') return `${action} needs authentication`;
  if (allowed.length === 1) return `${action} is for the platform operator (service key) only`;
  if (record && record.ownerId === null) return `this record belongs to the platform: only the operator may ${verb(action)}`;
  return `only the owner may ${verb(action)}`;
}

const verb = (action: Action) => action.replace('.', ' ').replace(/_/g, ' ');

/** The decision the services apply: nothing when allowed, else 401 (anonymous) or 403 naming why. */
export function authorize(caller: Caller, action: Action, record?: Ownership): void {
  if (can(caller, action, record)) return;
  const message = refusal(caller, action, record);
  throw caller.kind === 'anonymous' ? unauthorized(message) : forbidden(message);
}

/**
 * The `owner` a deploy names for the contract: the operator names any address; anyone else only a
 * wallet they proved (`callersWallet`) or the platform wallet. 403 naming the field and why.
 */
export function authorizeContractOwner(caller: Caller, owner: string, facts: { callersWallet: boolean; platformWallet: boolean }): void {
  if (can(caller, 'collection.name_any_contract_owner') || facts.callersWallet || facts.platformWallet) return;
  const message =
    `owner: ${owner} is neither a wallet you linked (Sign-In with Ethereum, POST /api/auth/wallet/verify) nor the platform wallet; ` +
    "only the operator (service key) names another address as the contract's owner()";
  throw caller.kind === 'anonymous' ? unauthorized(message) : forbidden(message);
}

/**
 * The owner a new record gets: the signed-in user, the user a service call names (`user_id`
 * header, or `named` — an `owner_user_id` field — which wins), or the platform (null). A user may
 * name only themselves.
 */
export function ownerFor(caller: Caller, named?: string | null): string | null {
  if (named) {
    if (!(caller.kind === 'user' && caller.userId === named)) {
      if (!can(caller, 'record.create_for_other')) {
        const message = `owner_user_id: only the operator (service key) makes records for another user`;
        throw caller.kind === 'anonymous' ? unauthorized(message) : forbidden(message);
      }
    }
    return named;
  }
  return caller.kind === 'anonymous' ? null : caller.userId;
}
