// One row's element: made from the page's <template id="row-template">, filled from a photo of
// the store. A row element is reused for other photos as the list scrolls, so render() writes
// everything a row shows; `data-state` is only a styling hook, never read back.

import { setText } from './format.js';

/** What a row says about its photo (`words`: the server's table, RowWords.swift, given with the
 * row template, so the rows the server renders and the page's say the same); a row this tab tried
 * again says so while it works and, failed again, how many times it was tried (its reason beside). */
export function statusText(photo, words) {
  const text = words.status[photo.state] ?? photo.state;
  const shown = photo.state === 'downloading' && photo.progress != null ? text + ' ' + Math.round(photo.progress * 100) + '%' : text;
  if (photo.retrying) return 'Trying again…';
  if (!photo.tries || photo.state === 'filtered') return shown;
  if (photo.state === 'failed') return `Failed again (tried ${photo.tries + 1} times)`;
  return 'Trying again · ' + shown;
}

function altText(photo, src) {
  if (photo.state === 'failed') return photo.name + ' failed to load';
  if (src && src.endsWith('/thumbnail')) return 'Sepia thumbnail of ' + photo.name;
  if (src) return photo.name + ' (not yet sepia)';
  return '';
}

const part = (el, role) => el.querySelector('[data-role="' + role + '"]');

/** Shows `src`, a sepia thumbnail, in row element `el` drawn by the server before its photo is known
 * (the first screen's, first-screen.js); `render` draws it whole once the photo is. */
export function showThumbnail(el, src) {
  part(el, 'thumb').src = src;
  el.dataset.state = 'filtered';
}

/** Creates rows from `template` (the <template> element). */
export function createRowFactory(template) {
  const prototype = template.content.firstElementChild;
  const words = JSON.parse(template.dataset.words);

  /** A new, empty row element. */
  function create() {
    const el = prototype.cloneNode(true);
    el.hidden = true;
    return el;
  }

  /** Writes `photo` into row element `el`: `src` is the image to show (null for the placeholder),
   * `top` its offset in the list, `active` whether it is the keyboard's current row, `offline`
   * whether the page has lost the server (then a row not showing its last image says it waits). */
  function render(el, photo, { src, top, count, active, offline }) {
    const index = String(photo.index);
    if (el.dataset.index !== index) {
      el.dataset.index = index;
      el.id = 'row-' + index;
      el.setAttribute('aria-posinset', String(photo.index + 1));
      setText(part(el, 'num'), '#' + (photo.index + 1));
    }
    el.setAttribute('aria-setsize', String(count));
    el.style.transform = 'translateY(' + top + 'px)';
    el.hidden = false;
    if (el.dataset.state !== photo.state) el.dataset.state = photo.state;
    el.setAttribute('aria-selected', active ? 'true' : 'false');
    el.classList.toggle('is-active', active);

    const settled = photo.state === 'failed' || (photo.state === 'filtered' && !!src && src.endsWith('/thumbnail'));
    // Sepia is ready but its thumbnail is not shown yet: the row does not offer to compare it.
    const showing = photo.state === 'filtered' && !settled && words.showing;
    const status = offline && !settled ? words.offline : showing || statusText(photo, words);
    setText(part(el, 'name'), photo.name);
    setText(part(el, 'status'), status);
    const reason = part(el, 'reason');
    setText(reason, photo.reason || '');
    // The technical detail behind the reason, on hover.
    const detail = photo.state === 'failed' ? (photo.detail || photo.reason || '') : '';
    if (detail) reason.title = detail;
    else reason.removeAttribute('title');
    part(el, 'retry').hidden = photo.state !== 'failed';
    // A row holds no controls of its own (it is an option of a listbox): Enter on it, or a click,
    // does what it offers, and its name says so.
    const label = photo.name + ', ' + status + (photo.reason ? ': ' + photo.reason : '') + (words.actions[photo.state] || '');
    if (el.getAttribute('aria-label') !== label) el.setAttribute('aria-label', label);

    const progress = part(el, 'progress');
    const known = photo.progress != null;
    progress.classList.toggle('indeterminate', photo.state === 'downloading' && !known);
    part(el, 'bar').style.setProperty('--p', known ? String(photo.progress) : '0');

    const img = part(el, 'thumb');
    if (src) {
      if (img.getAttribute('src') !== src) img.src = src;
    } else if (img.hasAttribute('src')) {
      img.removeAttribute('src');
    }
    const alt = altText(photo, src);
    if (img.alt !== alt) img.alt = alt;
  }

  return { create, render };
}
