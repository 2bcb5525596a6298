// The first screen's stop, asked by the page's first script (index.mustache) before the modules: its
// answer's thumbnails are kept and shown in the rows the server drew as they come, until images.js
// takes the answer over (`onFinal`). Loaded on its own (async), before the page's other modules.

import { readFrames } from './frames.js';

const early = window.classicPhotosEarlyImages;
if (early) {
  const image = (index) => {
    const img = document.querySelector('#row-' + index + ' img.thumb');
    return img && !img.getAttribute('src') ? img : null;
  };
  early.show = (index, src) => {
    const img = image(index);
    if (!img) return;
    img.src = src;
    img.closest('.row').dataset.state = 'filtered';
  };
  early.ended = early.response.then((response) => readFrames(response, document.body.dataset.basePath, (index, src) => {
    early.finals.set(index, src);
    if (early.onFinal) early.onFinal(index, src);
    else early.show(index, src);
  })).catch(() => {});
}
