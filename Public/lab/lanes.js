// One lane of the lab: its head (name and live figures) and its list of rows, views of the lane's
// two stores: its rows' states (store.js, as the list's) and its model (lane-store.js: the rows
// shown, its stops, its cancellations). A server lane is a viewer on the page's one event stream
// (server-lane.js); the browser lane is a plain list of lazy <img> on connections of its own
// (browser-lane.js). Either tells the model when a row shows its final image.

import { setText } from '../format.js';
import { createStore } from '../store.js';
import { createLaneStore } from './lane-store.js';
import { createLaneTimeline } from './timeline.js';
import { rowText, showRow } from './rows.js';
import { serverLane } from './server-lane.js';
import { browserLane } from './browser-lane.js';

/** A lane's display name: "prefetch (3)" for a prefetch lane. */
export const laneName = (spec) => spec.strategy === 'prefetch' ? `prefetch (${spec.prefetch})` : spec.strategy;

/** The lane's rows: an <li> per row, with its image and its words. */
function createRows(rows, rowHeight) {
  const cells = [];
  const images = [];
  for (let i = 0; i < rows; i += 1) {
    const li = document.createElement('li');
    li.className = 'lane-row';
    li.dataset.index = String(i);
    li.dataset.state = 'new';
    li.style.height = rowHeight + 'px';
    const img = document.createElement('img');
    img.alt = `Photo ${i + 1}`;
    img.width = Math.round(rowHeight * 1.5);
    img.height = rowHeight - 8;
    const label = document.createElement('span');
    label.className = 'row-label';
    label.textContent = rowText(i, 'new');
    li.append(img, label);
    cells.push(li);
    images.push(img);
  }
  return { cells, images };
}

/** Makes lane `spec` ({viewer, strategy, prefetch, images}) of a lab run `run` over `rows` rows;
 * `onChange()` when one of its rows shows its final image; `onPresentation(data)` each `presentation`
 * event on a server lane's stream (a presented lab's news). */
export function createLane(spec, { rows, rowHeight, run, onChange, onGone, onPresentation }) {
  const name = laneName(spec);
  const head = document.createElement('section');
  head.className = 'lane-head';
  head.dataset.strategy = spec.strategy;
  head.setAttribute('aria-label', `${name} lane figures`);
  head.innerHTML = '<h2></h2><p class="lane-figures" data-figures></p><p class="lane-since" data-since hidden></p>';
  setText(head.querySelector('h2'), name);
  const list = document.createElement('ol');
  list.className = 'lane-list';
  list.dataset.strategy = spec.strategy;
  list.setAttribute('aria-label', `${name} lane`);
  const { cells, images } = createRows(rows, rowHeight);
  list.append(...cells);

  const store = createStore({
    viewer: spec.viewer || null,
    requestedStrategy: null,
    serverStrategy: { strategy: spec.strategy, prefetch: spec.prefetch || 0 },
  });
  const model = createLaneStore(rows);
  const paint = (index) => {
    const photo = store.state.photos[index];
    if (photo && !photo.unknown) showRow(cells[index], index, photo.state, photo.progress);
  };
  store.subscribe((kind, detail) => {
    if (kind === 'list') cells.forEach((_, index) => paint(index));
    else if (kind === 'photos') detail.forEach(paint);
  });
  model.subscribe((kind) => { if (kind === 'shown') onChange(); });

  const timeline = spec.strategy === 'browser' ? null : createLaneTimeline(`${name} lane`, model);
  if (timeline) head.append(timeline.element);
  const lane = spec.strategy === 'browser'
    ? browserLane(spec, { images, store, model, run })
    : serverLane(spec, { images, store, model, timeline, onGone, onPresentation });
  return Object.assign(lane, { spec, name, head, list, timeline, store, model, figures: head.querySelector('[data-figures]'), since: head.querySelector('[data-since]') });
}
