// A lab lane's rows: "Photo 12 · downloading 40%", in the words a person uses.

import { setText } from '../format.js';

/** A row's state in words a person uses (the server's names are `new`, `filtered`, ...). */
const WORDS = {
  new: 'waiting', downloading: 'downloading', downloaded: 'downloaded, sepia next', filtering: 'applying sepia',
  filtered: 'sepia', failed: 'failed to load',
};

/** What a lane's row says: "Photo 12 · downloading 40%". */
export function rowText(index, state, progress) {
  const words = WORDS[state] || state;
  return `Photo ${index + 1} · ${state === 'downloading' && progress != null ? `${words} ${Math.round(progress * 100)}%` : words}`;
}

/** Shows row `index` of `cell` in `state`. */
export function showRow(cell, index, state, progress) {
  cell.dataset.state = state;
  setText(cell.querySelector('.row-label'), rowText(index, state, progress));
}
