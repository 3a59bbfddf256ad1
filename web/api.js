// The admin API client. The service key lives in sessionStorage (this tab only): it is sent as
// the X-API-Key header, never put in a URL and never logged.
const KEY_NAME = 'atelier.adminKey';

export const getKey = () => sessionStorage.getItem(KEY_NAME);
export const setKey = (key) => sessionStorage.setItem(KEY_NAME, key);
export const forgetKey = () => sessionStorage.removeItem(KEY_NAME);

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/**
 * Calls an admin route and answers its JSON body (`{success: true, ...}`), or throws an ApiError
 * carrying the status and the body's `error` string.
 */
export async function api(method, path, { query, body } = {}) {
  const key = getKey();
  if (!key) throw new ApiError(0, 'enter the service API key first');
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
  }
  const headers = { 'x-api-key': key, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, `network error: ${err.message}`);
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    /* not JSON */
  }
  if (res.status === 401) {
    // A rejected key locks the console again: nothing more is sent with it.
    forgetKey();
    window.dispatchEvent(new CustomEvent('atelier:key-rejected'));
  }
  if (!res.ok || (data && data.success === false)) {
    const message = (data && typeof data.error === 'string' && data.error) || res.statusText || 'request failed';
    throw new ApiError(res.status, message, data);
  }
  return data;
}
