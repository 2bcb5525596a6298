// The first screen's stop, asked by the page's first script (index.mustache) before the modules: its
// answer's thumbnails are kept and shown in the rows the server drew as they come, until images.js
// takes the answer over (`onFinal`). Loaded on its own (async), before the page's other modules.

import { readFrames } from './frames.js';
import { showThumbnail } from './rows.js';

const early = window.classicPhotosEarlyImages;
if (early) {
  // Only in a row the server drew without its thumbnail (the page's rows draw their own).
  early.show = (index, src) => {
    const img = document.querySelector('#row-' + index + ' img.thumb');
    if (img && !img.getAttribute('src')) showThumbnail(img.closest('.row'), src);
  };
  early.ended = early.response.then((response) => readFrames(response, document.body.dataset.basePath, (index, src) => {
    early.finals.set(index, src);
    if (early.onFinal) early.onFinal(index, src);
    else early.show(index, src);
  })).catch(() => {});
}
