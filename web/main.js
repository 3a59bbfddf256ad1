// Entry point: the key form, then the sections.
import { forgetKey, getKey, setKey } from './api.js';
import { $, showError, showMessage } from './dom.js';
import { initAdmin } from './admin.js';
import { collectionInAddress, initCollections, lookupCollection } from './collections.js';
import { initCollectionList, loadCollectionList } from './collection-list.js';
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
    const id = collectionInAddress();
    await Promise.all([loadPlatform(), loadIndexer(), loadCollectionList(), id ? lookupCollection(id) : undefined]);
  } catch (err) {
    showError(err);
  }
}

/** The indexer panel refreshes itself (quietly) while a key is set. */
function followIndexer() {
  setInterval(() => {
    if (getKey() && !document.hidden) loadIndexer().catch(() => undefined);
  }, 5000);
}

function init() {
  initCollectionList();
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

  // The refused call shows the server's 401 message; the console locks until a valid key is given.
  window.addEventListener('atelier:key-rejected', () => renderKeyState());
  window.addEventListener('hashchange', () => {
    const id = collectionInAddress();
    if (id && getKey()) lookupCollection(id).catch(showError);
  });

  renderKeyState();
  followIndexer();
  if (getKey()) refreshAll();
}

init();
