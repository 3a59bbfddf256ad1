/** Shapes of credentials (pure). */

/** User API keys start with this prefix; the service key and JWTs never do. */
export const USER_KEY_PREFIX = 'atk_';
/** Platform session tokens (Sign-In with Ethereum logins; docs/auth.md "Sessions") start with this one. */
export const SESSION_TOKEN_PREFIX = 'ats_';
/** The longest credential accepted anywhere (a JWT with many claims fits; anything longer is refused). */
export const MAX_CREDENTIAL_CHARS = 10_000;
