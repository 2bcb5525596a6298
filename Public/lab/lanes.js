// One lane of the lab: its head (name and live figures) and its list of rows. A server lane is a
// viewer on the page's one event stream (server-lane.js); the browser lane is a plain list of lazy
// <img> on connections of its own (browser-lane.js). Either says when a row shows its final image.

import { setText } from '../format.js';
import { createLaneTimeline } from './timeline.js';
import { rowText } from './rows.js';
import { serverLane } from './server-lane.js';
import { browserLane } from './browser-lane.js';

const LABELS = { eager: 'eager', visible: 'visible', prefetch: 'prefetch', serial: 'serial', browser: 'browser' };

/** A lane's display name: "prefetch (3)" for a prefetch lane. */
export const laneName = (spec) => spec.strategy === 'prefetch' ? `prefetch (${spec.prefetch})` : LABELS[spec.strategy] || spec.strategy;

/** Makes lane `spec` ({viewer, strategy, prefetch, images}) of a lab run `run` over `rows` rows. */
export function createLane(spec, { rows, rowHeight, run, onChange, onGone }) {
  const name = laneName(spec);
  const head = document.createElement('section');
  head.className = 'lane-head';
  head.dataset.strategy = spec.strategy;
  head.setAttribute('aria-label', `${name} lane figures`);
  head.innerHTML = '<h2></h2><p class="lane-figures" data-figures></p>';
  setText(head.querySelector('h2'), name);
  const list = document.createElement('ol');
  list.className = 'lane-list';
  list.dataset.strategy = spec.strategy;
  list.setAttribute('aria-label', `${name} lane`);
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
  list.append(...cells);
  const timeline = spec.strategy === 'browser' ? null : createLaneTimeline(`${name} lane`);
  if (timeline) head.append(timeline.element);
  const lane = spec.strategy === 'browser'
    ? browserLane(spec, { images, cells, run, onChange })
    : serverLane(spec, { images, cells, onChange, timeline, onGone });
  return Object.assign(lane, { spec, name, head, list, timeline, stops: [], figures: head.querySelector('[data-figures]') });
}
