// The admin API client. The credential (the operator's service key, a creator's JWT, or the
// session token Sign-In with Ethereum gave) lives in sessionStorage: this tab only, gone when the
// tab closes. It is sent as `Authorization: Bearer`, never put in a URL, never logged.
const CREDENTIAL = 'atelier.credential';
const METHOD = 'atelier.credentialMethod';

export const getCredential = () => sessionStorage.getItem(CREDENTIAL);
/** How the credential was obtained: 'key', 'jwt' or 'siwe'. */
export const credentialMethod = () => sessionStorage.getItem(METHOD);
export function setCredential(value, method) {
  sessionStorage.setItem(CREDENTIAL, value);
  sessionStorage.setItem(METHOD, method);
}
export function forgetCredential() {
  sessionStorage.removeItem(CREDENTIAL);
  sessionStorage.removeItem(METHOD);
}

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export const authHeaders = () => {
  const credential = getCredential();
  return credential ? { authorization: `Bearer ${credential}` } : {};
};

/** A rejected credential locks the console again: it is dropped and the sign-in page shown. */
export function rejected(message) {
  forgetCredential();
  window.dispatchEvent(new CustomEvent('atelier:signed-out', { detail: { message } }));
}

/**
 * Calls an admin route and answers its JSON body (`{success: true, ...}`), or throws an ApiError
 * carrying the status and the body's `error` string. `anonymous`: a sign-in call, sent without a
 * credential (a 401 there is the sign-in's failure, not a rejected credential).
 * `idempotent`: sends a fresh Idempotency-Key so a retried request is not done twice.
 * `trying`: the credential is being tried at sign-in; a 401 is that sign-in's answer.
 */
export async function api(method, path, { query, body, anonymous = false, idempotent = false, trying = false, signal } = {}) {
  if (!anonymous && !getCredential()) throw new ApiError(0, 'sign in first');
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
  }
  const headers = { accept: 'application/json', ...(anonymous ? {} : authHeaders()) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotent) headers['idempotency-key'] = crypto.randomUUID();
  let res;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError(0, `network error: ${err.message}`);
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    /* not JSON */
  }
  const message =
    (data && typeof data.error === 'string' && data.error) || (data && data.error?.message) || res.statusText || 'request failed';
  if (res.status === 401 && !anonymous && !trying) rejected(message);
  if (!res.ok || (data && data.success === false)) throw new ApiError(res.status, message, data);
  return data;
}
