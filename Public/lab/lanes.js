// One lane of the lab: its head (name and live figures) and its list of rows. A server lane
// follows its own viewer's event stream and sends that viewer the shared viewport's reports;
// the browser lane is a plain list of lazy <img> with a CSS sepia filter, timed in the page.

import { url, staticURL } from '../config.js';
import { setText } from '../format.js';
import { createLaneTimeline } from './timeline.js';

const FINAL = new Set(['filtered', 'failed']);
const LABELS = { eager: 'eager', visible: 'visible', prefetch: 'prefetch', serial: 'serial', browser: 'browser' };
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

/** A lane's display name: "prefetch (3)" for a prefetch lane. */
export const laneName = (spec) => spec.strategy === 'prefetch' ? `prefetch (${spec.prefetch})` : LABELS[spec.strategy] || spec.strategy;

/** Makes lane `spec` ({viewer, strategy, prefetch, images}) of a lab run `run` over `rows` rows. */
export function createLane(spec, { rows, rowHeight, run, onChange }) {
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
    : serverLane(spec, { images, cells, onChange, timeline });
  return Object.assign(lane, { spec, name, head, list, timeline, figures: head.querySelector('[data-figures]') });
}

/** A lane run by the server: its viewer's events set each row's state; reports go one at a time. */
function serverLane(spec, { images, cells, onChange, timeline }) {
  const states = cells.map(() => 'new');
  const events = new EventSource(url(`/events?viewer=${encodeURIComponent(spec.viewer)}`));
  const show = (index, state, progress) => {
    const cell = cells[index];
    if (!cell) return;
    states[index] = state;
    cell.dataset.state = state;
    if (state === 'filtered') images[index].src = url(`/photos/${index}/thumbnail?viewer=${encodeURIComponent(spec.viewer)}`);
    else if (state === 'failed') images[index].src = staticURL('failed.svg');
    setText(cell.querySelector('.row-label'), rowText(index, state, progress));
  };
  events.addEventListener('snapshot', (event) => {
    for (const photo of JSON.parse(event.data).photos) show(photo.index, photo.state, photo.progress);
    onChange();
  });
  events.addEventListener('operation', (event) => timeline.add(JSON.parse(event.data)));
  events.addEventListener('photo', (event) => {
    const photo = JSON.parse(event.data);
    show(photo.index, photo.state, photo.progress);
    if (FINAL.has(photo.state)) onChange();
  });
  let inFlight = false;
  let pending = null;
  const send = async () => {
    if (inFlight || !pending) return;
    const body = Object.assign({ viewer: spec.viewer }, pending);
    pending = null;
    inFlight = true;
    try {
      await fetch(url('/api/viewport'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    } catch (error) {
      // The next report carries the viewport again.
    }
    inFlight = false;
    send();
  };
  return {
    isDone: (first, last) => states.slice(first, last + 1).every((state) => FINAL.has(state)),
    report(payload) { pending = payload; send(); },
    close() { events.close(); },
  };
}

/** The web platform alone: lazy images of the same photos over the same network, a CSS sepia. */
function browserLane(spec, { images, cells, run, onChange }) {
  const loaded = cells.map(() => false);
  images.forEach((img, index) => {
    img.loading = 'lazy';
    img.decoding = 'async';
    img.className = 'browser-sepia';
    const settle = (state) => () => {
      loaded[index] = true;
      cells[index].dataset.state = state;
      setText(cells[index].querySelector('.row-label'), rowText(index, state));
      onChange();
    };
    img.addEventListener('load', settle('filtered'), { once: true });
    img.addEventListener('error', settle('failed'), { once: true });
    // A run of its own in the URL: "Run again" is cold for the browser's cache too.
    img.src = `${spec.images[index]}&run=${encodeURIComponent(run)}`;
  });
  return {
    isDone: (first, last) => loaded.slice(first, last + 1).every(Boolean),
    report() {},
    close() { images.forEach((img) => img.removeAttribute('src')); },
    /** Resource Timing of this run's images, by row: bytes fetched. */
    fetchedBytes() {
      const marker = `run=${encodeURIComponent(run)}`;
      const byURL = new Map(images.map((img, index) => [img.src, index]));
      const rows = new Map();
      for (const entry of performance.getEntriesByType('resource')) {
        if (!entry.name.includes(marker) || !byURL.has(entry.name)) continue;
        rows.set(byURL.get(entry.name), (rows.get(byURL.get(entry.name)) || 0) + (entry.encodedBodySize || entry.transferSize || 0));
      }
      return rows;
    },
  };
}
