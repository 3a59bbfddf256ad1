// #/webhooks — outbound webhook subscriptions (docs/webhooks.md; forwarded by the admin proxy to
// the backend as the caller: the operator sees every subscription, a creator their own). Create
// (the signing secret is shown once, with a copy button), rotate (the new secret once), test
// event, pause / re-enable (an automatically disabled one says why), delete (confirmed in place),
// and each subscription's delivery log with Replay.
import { api } from '../api.js';
import { act, badge, card, errorText, feedback, field, h, say, when } from '../dom.js';
import { sentence } from '../errors.js';
import { isOperator } from '../session.js';
import { WEBHOOK_EVENTS } from '../webhook-events.js';

/** The delivery logs that are open are re-read this often (the deliverer runs every second). */
const DELIVERIES_MS = 2000;
const DELIVERY_TONE = { succeeded: 'good', failed: 'bad', pending: 'neutral' };

/** The secret of a create or rotate, shown once: after "Done" it is gone from the page. */
function secretBox(slot, { title, secret, url }) {
  const line = feedback({ id: 'webhook-secret-feedback' });
  const copy = h('button', { id: 'webhook-secret-copy', type: 'button', class: 'secondary small' }, 'Copy');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(secret);
      say(line, 'Copied.', 'good');
    } catch {
      say(line, 'The browser refused the clipboard: select the secret and copy it.', 'bad');
    }
  });
  const done = h('button', { id: 'webhook-secret-done', type: 'button', class: 'ghost small' }, 'Done, I kept it');
  done.addEventListener('click', () => slot.replaceChildren());
  slot.replaceChildren(
    h(
      'section',
      { class: 'banner good wide secret-box', role: 'status', 'aria-live': 'polite' },
      h('strong', {}, title),
      h('p', {}, `The signing secret of ${url}. It is shown this once: keep it where your receiver verifies signatures.`),
      h('p', { class: 'row' }, h('code', { id: 'webhook-secret', class: 'secret' }, secret), copy, done),
      line,
    ),
  );
}

function deliveryRows(sub, list, onReplay) {
  if (list.length === 0) return h('p', { class: 'muted' }, 'No deliveries yet. Send a test event to see one.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table deliveries' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Event', 'Status', 'Code', 'Duration', 'Attempt', 'Time', ''].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        list.map((d) => {
          const last = d.attempt_log.at(-1);
          const line = feedback();
          const replay = h('button', { type: 'button', class: 'secondary small wh-replay' }, 'Replay');
          replay.addEventListener('click', () =>
            act(replay, line, async () => {
              await api('POST', '/api/webhooks/replay', { body: { id: sub.id, deliveryId: d.id } });
              onReplay();
              return 'Queued again.';
            }),
          );
          return h(
            'tr',
            { 'data-delivery': d.id, 'data-status': d.status },
            h('td', {}, h('code', {}, d.type)),
            h('td', {}, badge(d.status, DELIVERY_TONE[d.status] ?? 'neutral', { 'data-field': 'delivery-status' })),
            h('td', { 'data-field': 'delivery-code', title: d.last_error ?? '' }, d.last_status_code ?? (d.last_error ? 'error' : '—')),
            h('td', { 'data-field': 'delivery-duration' }, d.last_duration_ms == null ? '—' : `${d.last_duration_ms} ms`),
            h('td', { 'data-field': 'delivery-attempts' }, String(d.attempts)),
            h('td', {}, d.status === 'pending' && d.next_attempt_at ? `next ${when(d.next_attempt_at)}` : when(d.delivered_at ?? last?.at)),
            h('td', {}, replay, line),
          );
        }),
      ),
    ),
  );
}

const wideCard = (title, ...children) => {
  const c = card(title, ...children);
  c.classList.add('wide');
  return c;
};

export function webhooksPage() {
  const operator = isOperator();
  const secretSlot = h('div', { id: 'secret-slot', class: 'wide' });
  const listEl = h('div', { id: 'webhook-list', class: 'stack' }, h('p', { class: 'muted' }, 'Loading…'));
  const listLine = feedback({ id: 'webhook-list-feedback' });
  /** Open delivery logs (subscription id → stop function), kept across re-renders of the list. */
  const open = new Map();
  let disposed = false;

  // ---- create ----
  const url = h('input', { id: 'webhook-url', type: 'url', required: true, placeholder: 'https://example.com/atelier-hooks' });
  const events = WEBHOOK_EVENTS.filter((e) => operator || !e.operatorOnly).map((e) =>
    h(
      'label',
      { class: 'check' },
      h('input', { type: 'checkbox', name: 'event', value: e.type }),
      h('code', {}, e.type),
      h('small', { class: 'hint' }, ` ${e.about}`),
    ),
  );
  const createButton = h('button', { id: 'webhook-create', type: 'submit' }, 'Subscribe');
  const createLine = feedback({ id: 'webhook-create-feedback' });
  const form = h(
    'form',
    { id: 'webhook-form', class: 'stack', novalidate: true },
    field('Receiver URL', url, 'Public http(s) addresses only (docs/webhooks.md "Where events may go").'),
    h('fieldset', { class: 'events' }, h('legend', {}, 'Events'), events),
    h('div', { class: 'actions' }, createButton, createLine),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(createButton, createLine, async () => {
      const chosen = [...form.querySelectorAll('input[name=event]:checked')].map((i) => i.value);
      // The API checks both (its message names the field); the page only spares a round trip.
      if (!url.value.trim()) throw new Error('url: give the receiver URL');
      if (chosen.length === 0) throw new Error('events: choose at least one event');
      const { webhook } = await api('POST', '/api/webhooks', { body: { url: url.value.trim(), events: chosen } });
      secretBox(secretSlot, { title: 'Subscribed.', secret: webhook.secret, url: webhook.url });
      form.reset();
      await load();
      return `Subscribed ${webhook.url}.`;
    });
  });

  // ---- one subscription ----
  function subscriptionCard(sub) {
    const line = feedback();
    const button = (label, cls, fn, working) => {
      const b = h('button', { type: 'button', class: `secondary small ${cls}` }, label);
      b.addEventListener('click', () => act(b, line, fn, working ? { working } : {}));
      return b;
    };
    const setEnabled = (enabled) => async () => {
      await api('PUT', '/api/webhooks/update', { body: { id: sub.id, enabled } });
      await load();
      return enabled ? 'Enabled: pending deliveries go out again.' : 'Paused.';
    };
    const notice = !sub.enabled
      ? h(
          'div',
          { class: `banner ${sub.disabled_reason ? 'bad' : 'warn'} wh-disabled`, role: sub.disabled_reason ? 'alert' : 'status' },
          h(
            'p',
            {},
            sub.disabled_reason
              ? `Disabled automatically. ${sentence(sub.disabled_reason)} Nothing is sent to it until it is re-enabled.`
              : 'Paused: nothing is sent to it.',
          ),
          button(sub.disabled_reason ? 'Re-enable' : 'Enable', 'wh-enable', setEnabled(true)),
        )
      : null;

    const deliveries = h('div', { class: 'wh-deliveries-body' });
    const toggle = h('button', { type: 'button', class: 'ghost small wh-deliveries' }, 'Deliveries');
    function showDeliveries() {
      let timer;
      let stopped = false;
      const read = async () => {
        try {
          const { deliveries: list } = await api('GET', '/api/webhooks/deliveries', { query: { id: sub.id } });
          if (!stopped) deliveries.replaceChildren(deliveryRows(sub, list, () => read()));
        } catch (err) {
          if (!stopped) deliveries.replaceChildren(h('p', { class: 'bad', role: 'alert' }, errorText(err)));
        }
        clearTimeout(timer);
        if (!stopped && !disposed) timer = setTimeout(read, DELIVERIES_MS);
      };
      deliveries.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
      read();
      open.set(sub.id, () => {
        stopped = true;
        clearTimeout(timer);
      });
      toggle.textContent = 'Hide deliveries';
    }
    toggle.addEventListener('click', () => {
      if (open.has(sub.id)) {
        open.get(sub.id)();
        open.delete(sub.id);
        deliveries.replaceChildren();
        toggle.textContent = 'Deliveries';
      } else showDeliveries();
    });
    if (open.has(sub.id)) {
      open.get(sub.id)(); // the previous card's reader; this card reads from now on
      showDeliveries();
    }

    // Delete asks in place: one more click, naming what goes.
    const confirmRow = h('div', { class: 'row wh-confirm', hidden: true });
    const del = h('button', { type: 'button', class: 'ghost small bad wh-delete' }, 'Delete');
    del.addEventListener('click', () => {
      confirmRow.hidden = false;
      del.disabled = true;
    });
    const yes = h('button', { type: 'button', class: 'small danger wh-delete-confirm' }, 'Yes, delete it');
    yes.addEventListener('click', () =>
      act(yes, line, async () => {
        await api('POST', '/api/webhooks/delete', { body: { id: sub.id } });
        open.get(sub.id)?.();
        open.delete(sub.id);
        await load();
        say(listLine, `Deleted the subscription to ${sub.url}.`, 'good');
      }),
    );
    const no = h('button', { type: 'button', class: 'ghost small' }, 'Cancel');
    no.addEventListener('click', () => {
      confirmRow.hidden = true;
      del.disabled = false;
    });
    confirmRow.append(h('span', {}, 'Delete this subscription and its delivery log?'), yes, no);

    return h(
      'article',
      { class: 'card webhook', 'data-id': sub.id, 'data-enabled': String(sub.enabled) },
      h(
        'div',
        { class: 'row' },
        h('h3', { class: 'grow wh-url' }, sub.url),
        sub.enabled
          ? badge('enabled', 'good', { 'data-field': 'enabled' })
          : badge(sub.disabled_reason ? 'disabled' : 'paused', 'bad', { 'data-field': 'enabled' }),
      ),
      notice,
      h(
        'dl',
        { class: 'kv' },
        h('dt', {}, 'Events'),
        h(
          'dd',
          { 'data-field': 'events' },
          sub.events.map((e, i) => [i > 0 ? ', ' : null, h('code', { class: 'event' }, e)]),
        ),
        h('dt', {}, 'Failures in a row'),
        h('dd', { 'data-field': 'failures', class: sub.consecutive_failures > 0 ? 'warn' : '' }, String(sub.consecutive_failures)),
        operator ? [h('dt', {}, 'Owner'), h('dd', {}, sub.owner_id ?? 'the platform (every collection)')] : null,
        sub.previous_secret_expires_at
          ? [h('dt', {}, 'Previous secret'), h('dd', {}, `still signs until ${when(sub.previous_secret_expires_at)}`)]
          : null,
        h('dt', {}, 'Created'),
        h('dd', {}, when(sub.created_at)),
      ),
      h(
        'div',
        { class: 'actions' },
        button(
          'Send test event',
          'wh-test',
          async () => {
            const r = await api('POST', '/api/webhooks/test', { body: { id: sub.id } });
            if (!open.has(sub.id)) showDeliveries();
            return `Test event ${r.event_id} queued.`;
          },
          'Queueing…',
        ),
        button('Rotate secret', 'wh-rotate', async () => {
          const { webhook } = await api('POST', '/api/webhooks/rotate', { body: { id: sub.id } });
          secretBox(secretSlot, { title: 'New secret.', secret: webhook.secret, url: webhook.url });
          await load();
          say(listLine, 'Rotated: the previous secret keeps signing beside the new one for 24 hours.', 'good');
        }),
        sub.enabled ? button('Pause', 'wh-pause', setEnabled(false)) : null,
        toggle,
        del,
      ),
      confirmRow,
      line,
      deliveries,
    );
  }

  async function load() {
    try {
      const { webhooks } = await api('GET', '/api/webhooks');
      if (disposed) return;
      const alive = new Set(webhooks.map((w) => w.id));
      for (const [id, stop] of open) if (!alive.has(id)) stop(), open.delete(id);
      listEl.replaceChildren(
        ...(webhooks.length === 0
          ? [h('p', { class: 'empty', id: 'webhooks-empty' }, 'No subscriptions yet: subscribe a receiver URL above.')]
          : webhooks.map(subscriptionCard)),
      );
    } catch (err) {
      listEl.replaceChildren(h('p', { class: 'bad', role: 'alert' }, errorText(err)));
    }
  }
  load();

  const el = h(
    'div',
    { class: 'page' },
    h(
      'div',
      { class: 'page-head' },
      h(
        'div',
        {},
        h('h1', {}, 'Webhooks'),
        h(
          'p',
          { class: 'muted' },
          operator
            ? 'Signed events (Standard Webhooks) POSTed to your receivers. You see every subscription; the platform’s receive every collection’s events.'
            : 'Signed events (Standard Webhooks) POSTed to your receivers, for your own collections and tokens.',
        ),
      ),
    ),
    h(
      'div',
      { class: 'panel-grid' },
      secretSlot,
      wideCard('New subscription', form),
      h('section', { class: 'wide stack', 'aria-label': 'Subscriptions' }, h('h2', {}, 'Subscriptions'), listLine, listEl),
    ),
  );
  return {
    el,
    title: 'Webhooks',
    dispose() {
      disposed = true;
      for (const stop of open.values()) stop();
      open.clear();
    },
  };
}
