// Who is signed in, and the three ways to sign in: the operator's service key, a creator's JWT
// (pasted), or Sign-In with Ethereum (EIP-4361) through the browser wallet (EIP-1193
// `window.ethereum`: eth_requestAccounts, then personal_sign of the server's message).
import { ApiError, api, credentialMethod, forgetCredential, getCredential, setCredential } from './api.js';
import { errorText } from './dom.js';

/** {kind: 'operator'|'user', user_id, display_name, wallets} or null. */
let caller = null;
/** The chain this platform deploys to ({chain_id, chain_name, blockchain}), from GET /api/nft/session. */
let platform = null;
export const platformChain = () => platform;

export const currentCaller = () => caller;
export const isOperator = () => caller?.kind === 'operator';

/**
 * Reads who the credential belongs to (GET /api/nft/session). A 401 signs out (api.js), except
 * while `trying` a new credential at sign-in.
 */
export async function loadSession({ trying = false } = {}) {
  if (!getCredential()) {
    caller = null;
    return null;
  }
  const res = await api('GET', '/api/nft/session', { trying });
  caller = res.caller;
  platform = res.platform ?? null;
  return caller;
}

async function signInWith(credential, method) {
  setCredential(credential, method);
  try {
    return await loadSession({ trying: true });
  } catch (err) {
    forgetCredential();
    caller = null;
    throw err;
  }
}

export const signInWithKey = (key) => signInWith(key.trim(), 'key');
export const signInWithJwt = (token) => signInWith(token.trim().replace(/^Bearer\s+/i, ''), 'jwt');

export const hasWallet = () => typeof window.ethereum?.request === 'function';

const utf8Hex = (text) => `0x${[...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;

/**
 * Sign-In with Ethereum: the wallet names its account, the server answers a message with a fresh
 * nonce, the wallet signs it, the server verifies the signature and answers a session token.
 */
export async function signInWithEthereum() {
  if (!hasWallet()) throw new ApiError(0, 'no browser wallet found (window.ethereum): install one, or sign in with a token');
  const accounts = await window.ethereum.request({ method: 'eth_requestAccounts' });
  const address = accounts?.[0];
  if (!address) throw new ApiError(0, 'the wallet gave no account');
  let chainId;
  try {
    chainId = Number.parseInt(await window.ethereum.request({ method: 'eth_chainId' }), 16) || undefined;
  } catch {
    chainId = undefined; // optional: the server picks its chain
  }
  const nonce = await api('POST', '/api/nft/auth/siwe/nonce', {
    body: { address, ...(chainId ? { chain_id: chainId } : {}) },
    anonymous: true,
  });
  let signature;
  try {
    signature = await window.ethereum.request({ method: 'personal_sign', params: [utf8Hex(nonce.message), address] });
  } catch (err) {
    throw new ApiError(0, `the wallet did not sign: ${err?.message ?? err}`);
  }
  const login = await api('POST', '/api/nft/auth/siwe/login', { body: { message: nonce.message, signature }, anonymous: true });
  return signInWith(login.token, 'siwe');
}

/** The credential was refused (api.js dropped it): nobody is signed in any more. */
export function forgetCaller() {
  caller = null;
}

/**
 * Ends a session token (`ats_…`: a wallet sign-in, or such a token pasted in the token form) on
 * the server too; a key or JWT is only forgotten by this tab. Answers why the server did not end
 * the session (it then stays valid until it expires), or null.
 */
export async function signOut() {
  const credential = getCredential();
  let problem = null;
  if (credentialMethod() === 'siwe' || credential?.startsWith('ats_')) {
    try {
      await api('POST', '/api/nft/auth/logout');
    } catch (err) {
      // A 401: the session had already ended. Anything else: it is still live, and the person is told.
      if (err?.status !== 401) {
        problem = `Signed out of this tab, but the server did not end the session (${errorText(err)}): it stays valid until it expires.`;
      }
    }
  }
  forgetCredential();
  caller = null;
  return problem;
}

/** The caller's first wallet, to prefill recipient and sample wallet fields. */
export const callerWallet = () => {
  const w = caller?.wallets?.[0];
  return typeof w === 'string' ? w : (w?.address ?? '');
};
