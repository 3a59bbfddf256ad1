// Small DOM helpers. Text always goes through textContent or attributes, never innerHTML, so
// names, titles and errors from the API cannot inject markup.
import { sentence } from './errors.js';

/** h('td', {class: 'x', onclick: fn}, 'text', child) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** A <dl> of label → value pairs (values may be nodes); `data-field` names each value for tests. */
export function kv(pairs, attrs = {}) {
  return h(
    'dl',
    { class: 'kv', ...attrs },
    pairs.filter(Boolean).map(([label, value, field]) => [h('dt', {}, label), h('dd', field ? { 'data-field': field } : {}, value ?? '—')]),
  );
}

export const short = (hex) => (typeof hex === 'string' && hex.length > 14 ? `${hex.slice(0, 6)}…${hex.slice(-4)}` : (hex ?? '—'));

/** An address or hash, shortened, the full value in its title (and selectable as text on hover). */
export const hex = (value, attrs = {}) =>
  value ? h('code', { class: 'hex', title: value, ...attrs }, short(value)) : h('span', { class: 'muted' }, '—');

export function when(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

/** Stablecoin units (6 decimals) as a decimal string: "2500000" → "2.50". */
export function usd(units) {
  if (units === null || units === undefined || units === '') return '—';
  const s = String(units).padStart(7, '0');
  const whole = s.slice(0, -6).replace(/^0+(?=\d)/, '');
  const frac = s.slice(-6).replace(/0+$/, '').padEnd(2, '0');
  return `${whole}.${frac} USD`;
}

export const pct = (share) => `${(share * 100).toFixed(share > 0 && share < 0.1 ? 1 : 0)} %`;

/** A status word in a coloured pill. */
export function badge(text, tone = 'neutral', attrs = {}) {
  return h('span', { class: `badge ${tone}`, ...attrs }, text);
}

export const STATUS_TONE = {
  draft: 'neutral',
  deploying: 'warn',
  deployed: 'good',
  active: 'good',
  paused: 'warn',
  completed: 'info',
  queued: 'neutral',
  generating: 'info',
  failed: 'bad',
  pending: 'neutral',
  none: 'neutral',
};

/** An error as a sentence for a person (web/errors.js): no status code, fields named in words. */
export function errorText(err, ctx) {
  return sentence(err && err.message ? err.message : String(err), ctx);
}

/**
 * The line that answers one button: cleared when the action starts, then its outcome (success
 * text, or the error with its status). Feedback stays next to what caused it.
 */
export function feedback(attrs = {}) {
  return h('p', { class: 'feedback', role: 'status', 'aria-live': 'polite', ...attrs });
}

export function say(line, text, tone = 'muted') {
  line.textContent = text;
  line.className = `feedback ${tone}`;
  line.setAttribute('role', tone === 'bad' ? 'alert' : 'status');
}

/**
 * Runs `fn` with `button` disabled; its outcome goes to `line`: the string `fn` answers (or
 * `done`), or the error. Answers fn's result, or undefined after an error.
 */
export async function act(button, line, fn, { working = 'Working…', context } = {}) {
  if (button) button.disabled = true;
  if (line) say(line, working, 'muted');
  try {
    const result = await fn();
    if (line) {
      if (typeof result === 'string') say(line, result, 'good');
      else if (result && typeof result.message === 'string') say(line, result.message, 'good');
      else say(line, '', 'muted');
    }
    return result;
  } catch (err) {
    if (line) say(line, errorText(err, typeof context === 'function' ? context() : context), 'bad');
    else throw err;
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

/** A labelled form control: label text above the control; `hint` below it. */
export function field(label, control, hint) {
  return h('label', { class: 'field' }, h('span', { class: 'label' }, label), control, hint ? h('small', { class: 'hint' }, hint) : null);
}

/** An empty state: what is missing and what to do about it. */
export const empty = (text, ...more) => h('div', { class: 'empty' }, h('p', {}, text), ...more);

/** A card with a heading and its body. */
export function card(title, ...children) {
  const id = `h-${Math.random().toString(36).slice(2, 9)}`;
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

/** Reads a File as base64 (no data: prefix). */
export function fileBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('could not read the file'));
    reader.readAsDataURL(file);
  });
}

/** An image that shows a quiet placeholder while it has no source, or when it fails to load. */
export function art(src, alt, attrs = {}) {
  const box = h('div', { class: `art ${attrs.class ?? ''}`.trim() });
  if (!src) {
    box.append(h('span', { class: 'art-empty' }, attrs.placeholder ?? 'no image'));
    return box;
  }
  const img = h('img', { src, alt: alt ?? '', loading: 'lazy', ...(attrs.img ?? {}) });
  img.addEventListener('error', () => box.replaceChildren(h('span', { class: 'art-empty' }, 'image unavailable')));
  box.append(img);
  return box;
}
