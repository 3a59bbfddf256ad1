// The sign-in page, shown whenever no credential is held (the address is kept, so a link opens its
// page once signed in). Three ways: the operator's service key, a creator's JWT, or Sign-In with
// Ethereum through the browser wallet.
import { act, feedback, field, h, say } from '../dom.js';
import { hasWallet, signInWithEthereum, signInWithJwt, signInWithKey } from '../session.js';

/** `reason`: why the console is locked (a rejected credential's message), shown on top. */
export function signInPage({ reason, onSignedIn }) {
  const keyInput = h('input', {
    id: 'api-key',
    name: 'api-key',
    type: 'password',
    autocomplete: 'off',
    required: true,
    placeholder: 'paste the key',
  });
  const keyLine = feedback({ id: 'key-feedback' });
  const keyForm = h(
    'form',
    { id: 'key-form', class: 'stack', autocomplete: 'off' },
    field('Service API key', keyInput, 'The platform key (.atelier/api-key, or API_KEY). Operators see every collection.'),
    h('button', { type: 'submit' }, 'Sign in with the key'),
    keyLine,
  );
  keyForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const key = keyInput.value.trim();
    keyInput.value = '';
    if (!key) return;
    act(keyForm.querySelector('button'), keyLine, async () => {
      await signInWithKey(key);
      onSignedIn();
    });
  });

  const jwtInput = h('textarea', { id: 'jwt', name: 'jwt', rows: 3, spellcheck: 'false', required: true, placeholder: 'eyJhbGciOi…' });
  const jwtLine = feedback({ id: 'jwt-feedback' });
  const jwtForm = h(
    'form',
    { id: 'jwt-form', class: 'stack', autocomplete: 'off' },
    field('Access token (JWT)', jwtInput, 'A token from your identity provider. You see and manage your own collections.'),
    h('button', { type: 'submit', class: 'secondary' }, 'Sign in with the token'),
    jwtLine,
  );
  jwtForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const token = jwtInput.value.trim();
    jwtInput.value = '';
    if (!token) return;
    act(jwtForm.querySelector('button'), jwtLine, async () => {
      await signInWithJwt(token);
      onSignedIn();
    });
  });

  const walletLine = feedback({ id: 'siwe-feedback' });
  const walletButton = h('button', { id: 'siwe', type: 'button', class: 'secondary' }, 'Sign in with Ethereum');
  walletButton.addEventListener('click', () =>
    act(
      walletButton,
      walletLine,
      async () => {
        await signInWithEthereum();
        onSignedIn();
      },
      { working: 'Waiting for the wallet…' },
    ),
  );
  const wallet = h(
    'div',
    { class: 'stack' },
    h('p', { class: 'hint' }, 'Your browser wallet signs a one-time message (EIP-4361); no transaction, no fee.'),
    walletButton,
    walletLine,
  );
  if (!hasWallet()) {
    walletButton.disabled = true;
    say(walletLine, 'No browser wallet found in this browser.', 'muted');
  }

  const el = h(
    'div',
    { class: 'signin' },
    h('h1', {}, 'Sign in to the Atelier console'),
    reason ? h('p', { id: 'signin-reason', class: 'banner bad', role: 'alert' }, reason) : null,
    h(
      'div',
      { class: 'signin-grid' },
      h('section', { class: 'card' }, h('h2', {}, 'Operator'), keyForm),
      h('section', { class: 'card' }, h('h2', {}, 'Creator'), jwtForm, h('div', { class: 'or' }, 'or'), wallet),
    ),
  );
  return { el, title: 'Sign in' };
}
