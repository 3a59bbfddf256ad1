// Small DOM helpers. Text always goes through textContent, never innerHTML.

/** h('td', {class: 'x'}, 'text', child) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** Fills a <dl> with label → value pairs (values may be nodes). */
export function fillKv(dl, pairs) {
  dl.replaceChildren(...pairs.flatMap(([label, value]) => [h('dt', {}, label), h('dd', {}, value ?? '—')]));
}

export const short = (hex) => (typeof hex === 'string' && hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : (hex ?? ''));

const messageEl = () => $('#message');
let hideTimer;

/** The one visible message area: errors stay until replaced, successes fade after a while. */
export function showMessage(text, kind = 'ok') {
  const el = messageEl();
  clearTimeout(hideTimer);
  el.textContent = text;
  el.className = `message ${kind}`;
  el.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  el.hidden = false;
  if (kind === 'ok') hideTimer = setTimeout(() => (el.hidden = true), 15000);
}

export function showError(err) {
  const status = err && err.status ? `${err.status}: ` : '';
  showMessage(`${status}${err && err.message ? err.message : String(err)}`, 'error');
}

/** Runs an async action with its button disabled; errors go to the message area. */
export async function busy(button, fn) {
  if (button) button.disabled = true;
  try {
    return await fn();
  } catch (err) {
    showError(err);
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}
