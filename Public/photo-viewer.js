// The photo viewer: the original and the full-size sepia image of one photo, with a before/after
// slider, its size and what each image cost to load. Escape or Close ends it and focus goes back
// to where it was.

import { url } from './config.js';
import { formatBytes, formatSeconds, setText } from './format.js';

/** Wires the <dialog id="viewer">; `returnTo` is focused when it closes. */
export function createPhotoViewer({ store, dialog, returnTo }) {
  const part = (role) => dialog.querySelector('[data-role="' + role + '"]');
  const slider = part('slider');
  const title = dialog.querySelector('[data-role="title"]');

  function describe(img, el) {
    const entry = performance.getEntriesByName(img.currentSrc || img.src).pop();
    const bytes = entry && entry.encodedBodySize ? formatBytes(entry.encodedBodySize) : 'cached';
    const time = entry ? formatSeconds(entry.duration / 1000) : '';
    setText(el, bytes + (time ? ' in ' + time : ''));
  }

  function load(img, src, factsEl, onSize) {
    setText(factsEl, 'loading…');
    img.onload = () => {
      describe(img, factsEl);
      if (onSize) setText(part('size'), img.naturalWidth + ' × ' + img.naturalHeight + ' px');
    };
    img.onerror = () => setText(factsEl, 'could not be loaded');
    img.src = src;
  }

  /** Opens the viewer on photo `index`, if it is sepia. */
  function show(index) {
    const photo = store.state.photos[index];
    if (!photo || photo.state !== 'filtered') return;
    setText(title, photo.name);
    part('original').alt = photo.name + ', as downloaded';
    part('sepia').alt = photo.name + ', in sepia';
    setText(part('size'), '…');
    load(part('original'), url('/photos/' + index + '/original'), part('original-facts'), true);
    load(part('sepia'), url('/photos/' + index + '/sepia'), part('sepia-facts'), false);
    part('sepia-link').href = url('/photos/' + index + '/sepia');
    slider.value = '50';
    part('sepia-clip').style.setProperty('--split', '50%');
    dialog.dataset.index = String(index);
    dialog.showModal();
  }

  slider.addEventListener('input', () => part('sepia-clip').style.setProperty('--split', slider.value + '%'));
  dialog.querySelector('[data-action="close-viewer"]').addEventListener('click', () => dialog.close());
  // Escape closes a modal dialog by itself; either way focus goes back.
  dialog.addEventListener('close', () => {
    part('original').removeAttribute('src');
    part('sepia').removeAttribute('src');
    returnTo.focus({ preventScroll: true });
  });

  return { show, get open() { return dialog.open; } };
}
