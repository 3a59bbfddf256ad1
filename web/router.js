// Hash routes: the address names the page (#/collections, #/collections/<id>/tokens?trait=…),
// so a reload or a shared link opens the same place. A page is `render(params, query) →
// {el, title, dispose?}`; the router disposes the previous page (its timers, streams, sockets)
// before showing the next.

const routes = [];
let current = null;
let onRender = () => {};
let allowed = () => true;
let started = false;
let generation = 0;

/** route('/collections/:id/tokens/:tokenId', page) */
export function route(pattern, page) {
  const names = [];
  const source = pattern.replace(/:([a-zA-Z]+)/g, (_, name) => {
    names.push(name);
    return '([^/]+)';
  });
  routes.push({ regex: new RegExp(`^${source}$`), names, page });
}

export function parseHash(hash = location.hash) {
  const raw = hash.replace(/^#/, '') || '/';
  const [path, search = ''] = raw.split('?');
  return { path: path.replace(/\/+$/, '') || '/', query: new URLSearchParams(search) };
}

/** `#/path?query` from a path and a query object (arrays repeat their key). */
export function hrefOf(path, query = {}) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    for (const x of Array.isArray(v) ? v : [v]) params.append(k, String(x));
  }
  const qs = params.toString();
  return `#${path}${qs ? `?${qs}` : ''}`;
}

export function navigate(href, { replace = false } = {}) {
  if (replace) {
    history.replaceState(null, '', href);
    render();
  } else if (location.hash === href) render();
  else location.hash = href;
}

const decodeOrNull = (part) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
};

/** Shows the page the address names (or the fallback for an unknown one). */
export async function render() {
  if (!allowed()) return;
  const { path, query } = parseHash();
  const gen = ++generation;
  current?.dispose?.();
  current = null;
  for (const r of routes) {
    const m = r.regex.exec(path);
    if (!m) continue;
    // A malformed escape (`%E0%A4%A`, from a hand-made link) names no page: the fallback below.
    const values = m.slice(1).map(decodeOrNull);
    if (values.includes(null)) break;
    const params = Object.fromEntries(r.names.map((n, i) => [n, values[i]]));
    const view = await r.page(params, query);
    // A later navigation won while this page loaded: drop this one.
    if (gen !== generation) {
      view?.dispose?.();
      return;
    }
    current = view;
    onRender(view, path);
    return;
  }
  navigate('#/collections', { replace: true });
}

/** `show(view, path)` puts a page on screen; pages render only while `canRender()` (signed in). */
export function startRouter(show, canRender) {
  onRender = show;
  allowed = canRender;
  if (!started) window.addEventListener('hashchange', render);
  started = true;
  return render();
}

/** Stops the current page (sign-out). */
export function stopPage() {
  generation++;
  current?.dispose?.();
  current = null;
}
