// Entry point: the key form, then the sections.
import { forgetKey, getKey, setKey } from './api.js';
import { $, showError, showMessage } from './dom.js';
import { initAdmin } from './admin.js';
import { initCollections } from './collections.js';
import { initMint } from './mint.js';
import { initPlatform, loadIndexer, loadPlatform } from './platform.js';

function renderKeyState() {
  const hasKey = Boolean(getKey());
  $('#key-form').hidden = hasKey;
  $('#key-state').hidden = !hasKey;
  document.body.classList.toggle('locked', !hasKey);
}

async function refreshAll() {
  try {
    await Promise.all([loadPlatform(), loadIndexer()]);
  } catch (err) {
    showError(err);
  }
}

function init() {
  initPlatform();
  initCollections();
  initMint();
  initAdmin();

  $('#key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('#api-key');
    const key = input.value.trim();
    input.value = '';
    if (!key) return;
    setKey(key);
    renderKeyState();
    showMessage('Key set for this tab.', 'info');
    refreshAll();
  });
  $('#forget-key').addEventListener('click', () => {
    forgetKey();
    renderKeyState();
    showMessage('Key forgotten.', 'info');
  });

  renderKeyState();
  if (getKey()) refreshAll();
}

init();
