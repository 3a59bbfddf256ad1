/**
 * The static viewer a bundle carries (docs/permanence.md "The viewer"): index.html, viewer.js,
 * viewer.css and bundle-data.js. Relative URLs only, no outside requests, no build step: it works
 * from any IPFS gateway path (`/ipfs/<root>/`, `<root>.ipfs.<gateway>/`) and from a plain folder
 * (the gallery comes from bundle-data.js, a script, so it shows even from file://; receipts are
 * fetched when shown, with a link to the file when fetch is not allowed).
 */
import type { ViewerData } from './permanence.ts';

export function viewerIndexHtml(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="viewer.css">
</head>
<body>
<header>
  <h1 id="title">${escapeHtml(title)}</h1>
  <p id="description"></p>
  <p id="contract"></p>
</header>
<main>
  <section id="gallery" aria-label="tokens"></section>
  <section id="detail" hidden></section>
</main>
<footer>
  <h2>How to check a token</h2>
  <ol>
    <li>Each token's <code>receipts/&lt;id&gt;.json</code> says how its artwork was made: the seed and its inputs (the
      collection's commitment and the mint block's hash), every variable and who chose it, and the
      <code>sha256</code> of the image file.</li>
    <li>Compare that hash with the image in this bundle: <code>sha256sum images/&lt;id&gt;.png</code>.</li>
    <li>Recompute the seed and every trait from public data with <code>npx atelier verify</code> (planned: see
      docs/fairness.md in the Atelier repository; until it ships, the formulas are there).</li>
    <li>Every file here is addressed by its content (IPFS CID): a changed byte gives another address.</li>
  </ol>
  <p><a href="contract.json">contract.json</a> (ERC-7572 contract metadata)</p>
</footer>
<script src="bundle-data.js"></script>
<script src="viewer.js"></script>
</body>
</html>
`;
}

export function viewerData(data: ViewerData): string {
  return `window.ATELIER_BUNDLE = ${JSON.stringify(data)};\n`;
}

export const VIEWER_CSS = `body{font-family:system-ui,sans-serif;margin:0;background:#111;color:#eee}
header,footer{padding:1rem 2rem}
footer{border-top:1px solid #333;font-size:.9rem;color:#bbb}
a{color:#8cf}
code{background:#222;padding:0 .2em}
#gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:1rem;padding:1rem 2rem}
.card{background:#1b1b1b;border:1px solid #333;border-radius:6px;padding:.5rem;cursor:pointer;text-align:center}
.card img{width:100%;aspect-ratio:1;object-fit:contain;background:#000}
#detail{padding:1rem 2rem;display:grid;grid-template-columns:minmax(200px,420px) 1fr;gap:2rem}
#detail img{width:100%}
table{border-collapse:collapse}
td,th{border:1px solid #333;padding:.2rem .5rem;text-align:left}
pre{white-space:pre-wrap;word-break:break-all;background:#1b1b1b;padding:.5rem;max-height:40rem;overflow:auto}
`;

export const VIEWER_JS = `(function () {
  'use strict';
  var data = window.ATELIER_BUNDLE;
  var gallery = document.getElementById('gallery');
  var detail = document.getElementById('detail');
  function el(tag, text, attrs) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  if (!data) {
    gallery.appendChild(el('p', 'bundle-data.js is missing: this folder is not a complete Atelier bundle.'));
    return;
  }
  document.getElementById('description').textContent = data.collection.description || '';
  if (data.collection.address) {
    document.getElementById('contract').textContent =
      'Contract ' + data.collection.address + ' on chain ' + data.collection.chain_id;
  }
  function show(t) {
    detail.hidden = false;
    detail.textContent = '';
    var left = el('div');
    left.appendChild(el('img', null, { src: t.image, alt: t.name }));
    var right = el('div');
    right.appendChild(el('h2', t.name));
    var table = el('table');
    var head = el('tr');
    head.appendChild(el('th', 'Trait'));
    head.appendChild(el('th', 'Value'));
    table.appendChild(head);
    (t.attributes || []).forEach(function (a) {
      var row = el('tr');
      row.appendChild(el('td', a && a.trait_type));
      row.appendChild(el('td', a && a.value));
      table.appendChild(row);
    });
    right.appendChild(table);
    var links = el('p');
    links.appendChild(el('a', 'metadata', { href: t.metadata }));
    links.appendChild(document.createTextNode(' - '));
    links.appendChild(el('a', 'receipt', { href: t.receipt }));
    links.appendChild(document.createTextNode(' - '));
    links.appendChild(el('a', 'image', { href: t.image }));
    right.appendChild(links);
    right.appendChild(el('h3', 'Receipt'));
    var pre = el('pre', 'loading ' + t.receipt + ' ...');
    right.appendChild(pre);
    detail.appendChild(left);
    detail.appendChild(right);
    fetch(t.receipt)
      .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.json(); })
      .then(function (j) { pre.textContent = JSON.stringify(j, null, 2); })
      .catch(function () { pre.textContent = 'Open ' + t.receipt + ' to read the receipt (this page cannot fetch files here).'; });
    detail.scrollIntoView();
  }
  data.tokens.forEach(function (t) {
    var card = el('div', null, { class: 'card', tabindex: '0' });
    card.appendChild(el('img', null, { src: t.image, alt: t.name, loading: 'lazy' }));
    card.appendChild(el('div', t.name));
    card.addEventListener('click', function () { show(t); });
    card.addEventListener('keydown', function (e) { if (e.key === 'Enter') show(t); });
    gallery.appendChild(card);
  });
})();
`;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
