/** Shapes of credentials (pure). */

/** User API keys start with this prefix; the service key and JWTs never do. */
export const USER_KEY_PREFIX = 'atk_';
