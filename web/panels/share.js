// The collection header's Share button (docs/mint-page.md): the public mint page's link and the
// <iframe> snippet of its embed widget, each with a Copy button. The addresses come from the
// overview (`share`), built by the backend from its public URL.
import { feedback, h, say } from '../dom.js';

const attr = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The snippet a creator pastes into their site. */
export const iframeSnippet = (embedUrl, title) =>
  `<iframe src="${attr(embedUrl)}" title="${attr(`Mint ${title}`)}" width="420" height="600" style="border:0;max-width:100%" loading="lazy"></iframe>`;

/** Copies `text` (the Clipboard API where the page is a secure context, else the textarea's selection). */
async function copy(text, area) {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    area.focus();
    area.select();
    if (!document.execCommand('copy')) throw new Error('copy refused by the browser: select the text and copy it');
  }
}

export function shareButton(overview) {
  const share = overview.share;
  if (!share) return null;
  const line = feedback({ id: 'share-feedback' });
  const row = (label, value, name) => {
    const area = h('textarea', { readonly: true, rows: name === 'iframe' ? 3 : 1, id: `share-${name}`, class: 'share-text' }, value);
    const button = h('button', { type: 'button', class: 'ghost small', 'data-copy': name }, 'Copy');
    button.addEventListener('click', () =>
      copy(value, area).then(
        () => say(line, `${label} copied.`, 'good'),
        (err) => say(line, err.message, 'bad'),
      ),
    );
    return h('div', { class: 'share-row' }, h('span', { class: 'label' }, label), area, button);
  };
  const panel = h(
    'div',
    { class: 'share-panel', id: 'share-panel', hidden: true },
    row('Page link', share.page_url, 'link'),
    row('Embed (iframe)', iframeSnippet(share.embed_url, overview.collection.title), 'iframe'),
    h('p', { class: 'small muted' }, 'Anyone can open the page and mint with their own wallet; the embed fits a site\u2019s iframe.'),
    line,
  );
  const button = h('button', { type: 'button', class: 'ghost small', id: 'share-button', 'aria-expanded': 'false' }, 'Share');
  button.addEventListener('click', async () => {
    const open = panel.hidden;
    panel.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    if (open) {
      await copy(share.page_url, panel.querySelector('#share-link')).then(
        () => say(line, 'Page link copied.', 'good'),
        () => say(line, 'Copy the link or the snippet below.', 'muted'),
      );
    }
  });
  return h('div', { class: 'share' }, button, panel);
}
