// Entry point: the routes, the header (who is signed in, sign out), and the sign-in page whenever
// no credential is held. A rejected credential (any 401) locks the console again.
import { getCredential } from './api.js';
import { $, badge, errorText, h, short } from './dom.js';
import { collectionPage } from './pages/collection.js';
import { collectionsPage } from './pages/collections.js';
import { newCollectionPage } from './pages/new-collection.js';
import { platformPage } from './pages/platform.js';
import { signInPage } from './pages/signin.js';
import { tokenPage } from './pages/token.js';
import { webhooksPage } from './pages/webhooks.js';
import { route, startRouter, stopPage } from './router.js';
import { callerWallet, currentCaller, forgetCaller, isOperator, loadSession, signOut } from './session.js';

route('/collections', collectionsPage);
route('/collections/new', newCollectionPage);
route('/collections/:id/tokens/:tokenId', tokenPage);
route('/collections/:id', collectionPage);
route('/collections/:id/:tab', collectionPage);
route('/platform', platformPage);
route('/webhooks', webhooksPage);

const view = () => $('#view');

function show(page, path) {
  view().replaceChildren(page.el);
  document.title = `${page.title} · Atelier console`;
  for (const a of document.querySelectorAll('#nav a')) {
    if (path.startsWith(`/${a.dataset.nav}`)) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function renderWho() {
  const caller = currentCaller();
  const who = $('#who');
  who.hidden = !caller;
  $('#nav').hidden = !caller;
  // Operator-only parts of the console (the platform contracts) are not shown to creators.
  for (const el of document.querySelectorAll('[data-operator-only]')) el.hidden = !isOperator();
  if (!caller) return;
  const wallet = callerWallet();
  const parts = [
    caller.kind === 'operator'
      ? badge('Operator', 'info', { 'data-field': 'caller-kind' })
      : badge('Creator', 'good', { 'data-field': 'caller-kind' }),
    h(
      'span',
      { class: 'who-detail', 'data-field': 'caller-name' },
      caller.kind === 'operator' ? 'service key' : (caller.display_name ?? `user ${short(caller.user_id)}`),
    ),
  ];
  if (wallet) parts.push(h('code', { class: 'hex who-detail', title: wallet, 'data-field': 'caller-wallet' }, short(wallet)));
  $('#who-name').replaceChildren(...parts);
}

function showSignIn(reason) {
  stopPage();
  renderWho();
  const page = signInPage({ reason, onSignedIn: start });
  show(page, '');
  page.el.querySelector('input, button:not([disabled])')?.focus();
}

/** Reads who is signed in, then shows the page the address names. */
async function start() {
  if (!getCredential()) return showSignIn();
  try {
    await loadSession();
  } catch (err) {
    // A 401 signed out already (api.js); anything else: say why and offer to sign in again.
    if (!getCredential() || err.status === 401) return showSignIn(errorText(err));
    view().replaceChildren(h('p', { class: 'banner bad', role: 'alert' }, `The console could not start: ${errorText(err)}`));
    return;
  }
  renderWho();
  return startRouter(show, () => Boolean(getCredential()));
}

window.addEventListener('atelier:signed-out', (e) => {
  forgetCaller();
  showSignIn(`Signed out: ${e.detail?.message ?? 'the credential was refused'}`);
});
$('#sign-out').addEventListener('click', async () => {
  // Why the server did not end the session, when it did not (shown on the sign-in page).
  const problem = await signOut();
  showSignIn(problem ?? undefined);
});

start();
