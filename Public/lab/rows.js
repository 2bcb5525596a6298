// A lab lane's rows: "Photo 12 · Downloading… 40%", in the list's words (the server's RowWords,
// served with the lab page), a lane's finished row saying only "Sepia" (the lab offers no comparison).

import { setText } from '../format.js';

const WORDS = JSON.parse(document.body.dataset.words || '{}');

/** What a lane's row says: "Photo 12 · Downloading… 40%". */
export function rowText(index, state, progress) {
  const words = state === 'filtered' ? WORDS.lane : (WORDS.status && WORDS.status[state]) || state;
  return `Photo ${index + 1} · ${state === 'downloading' && progress != null ? `${words} ${Math.round(progress * 100)}%` : words}`;
}

/** Shows row `index` of `cell` in `state`. */
export function showRow(cell, index, state, progress) {
  cell.dataset.state = state;
  setText(cell.querySelector('.row-label'), rowText(index, state, progress));
}
