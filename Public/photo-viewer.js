// The photo viewer: the original and the full-size sepia image of one photo, with a before/after
// split set by a drag on the photo or by the slider under it (both span the photo exactly, so p%
// is p% of the photo), its size and what each image cost to load. Escape, Close or a click on the
// backdrop ends it and focus goes back to where it was.

import { url } from './config.js';
import { formatBytes, formatSeconds, setText } from './format.js';

/** Wires the <dialog id="viewer">; `returnTo` is focused when it closes. */
export function createPhotoViewer({ store, dialog, returnTo }) {
  const part = (role) => dialog.querySelector('[data-role="' + role + '"]');
  const slider = part('slider');
  const compare = part('compare');
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
      if (onSize) {
        setText(part('size'), img.naturalWidth + ' × ' + img.naturalHeight + ' px');
        fit();
      }
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
    split(50);
    dialog.dataset.index = String(index);
    dialog.showModal();
  }

  /** Sizes the frame to the photo as shown: as wide as the dialog allows, at most the frame's
   * --max-photo-height tall, never larger than the photo, so there is no letterbox. */
  function fit() {
    const img = part('original');
    const frame = compare.parentElement;
    if (!img.naturalWidth || !dialog.open) return;
    frame.style.width = '';
    const width = frame.clientWidth;
    const probe = document.createElement('div');
    probe.style.height = 'var(--max-photo-height)';
    frame.append(probe);
    const height = probe.getBoundingClientRect().height;
    probe.remove();
    const scale = Math.min(1, width / img.naturalWidth, height / img.naturalHeight);
    frame.style.width = Math.floor(img.naturalWidth * scale) + 'px';
  }

  /** Puts the split at `percent` of the photo's width, on the photo and on the slider. */
  function split(percent) {
    slider.value = String(Math.max(0, Math.min(100, percent)));
    compare.style.setProperty('--split', slider.value + '%'); // the slider's step, so both say the same
  }
  const splitAt = (event) => {
    const box = compare.getBoundingClientRect();
    if (box.width > 0) split(((event.clientX - box.left) / box.width) * 100);
  };

  slider.addEventListener('input', () => split(Number(slider.value)));
  window.addEventListener('resize', fit);
  compare.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    compare.setPointerCapture(event.pointerId);
    splitAt(event);
  });
  compare.addEventListener('pointermove', (event) => { if (compare.hasPointerCapture(event.pointerId)) splitAt(event); });
  // A click on the backdrop (outside the dialog's box; the backdrop's clicks land on the dialog) closes it.
  dialog.addEventListener('click', (event) => {
    if (event.target !== dialog) return;
    const box = dialog.getBoundingClientRect();
    const inside = event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
    if (!inside) dialog.close();
  });
  dialog.querySelector('[data-action="close-viewer"]').addEventListener('click', () => dialog.close());
  // Escape closes a modal dialog by itself; either way focus goes back.
  dialog.addEventListener('close', () => {
    compare.parentElement.style.width = '';
    part('original').removeAttribute('src');
    part('sepia').removeAttribute('src');
    returnTo.focus({ preventScroll: true });
  });

  return { show, get open() { return dialog.open; } };
}
