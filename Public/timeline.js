// The timeline view: one track per operation each queue runs at once (the server's concurrency)
// and, above each queue's tracks, one for operations cancelled while still queued, drawn as marks. Every bar and
// mark is a button that tells on hover and focus what it was, and scrolls the list to its row when
// used; together they are one Tab stop (a roving tabindex: the newest bar, or the one last
// focused), and arrow keys move between them. Bars sit at fixed offsets on a strip that slides as time passes; it can be paused and
// scrubbed back over the kept history, and filtered to this page's work.

import { WINDOW_SECONDS, HISTORY_SECONDS } from './timeline-model.js';
import { describeOperation } from './timeline-text.js';
import { setText } from './format.js';
import { createTimelineTracks } from './timeline-tracks.js';
import { createTimelineKeys } from './timeline-keys.js';

/** Creates the view in `root` (#timeline) over `model`; `onSelect(index)` for a used bar. */
export function createTimelineView({ root, controls, model, store, tips, onSelect }) {
  const part = (role) => root.querySelector('[data-role="' + role + '"]');
  const labels = part('labels');
  const plot = part('plot');
  const strip = part('strip');
  const axis = part('axis');
  const elements = new Map(); // item id -> element
  const tracks = createTimelineTracks({ root, labels });
  let pps = 1; // pixels per second
  let plotWidth = 0; // as the resize observer last saw it (reading it per frame would force layouts)
  let epoch = null; // the server time of strip x = 0
  let pausedAt = null; // server time the view froze at, or null when live
  let back = 0; // seconds scrubbed back from pausedAt
  let frame = 0;
  let lastDraw = 0;
  const viewEnd = () => (pausedAt == null ? model.serverNow() : pausedAt - back);
  const sheet = root.closest('details');
  const visibleNow = () => !document.hidden && (!sheet || sheet.open);

  const keys = createTimelineKeys({ root, model, elements, viewEnd });
  const placeAll = () => { for (const item of model.items) { const el = elements.get(item.id); if (el) place(item, el); } };

  function place(item, el) {
    if (tracks.use(item.queue, item.track)) placeAll();
    if (epoch == null) epoch = item.start;
    const end = item.end == null ? viewEnd() : item.end;
    el.style.left = ((item.start - epoch) * pps).toFixed(1) + 'px';
    if (item.kind === 'bar') el.style.width = Math.max(3, (end - item.start) * pps).toFixed(1) + 'px';
    el.style.top = tracks.top(item.queue, item.track) + 'px';
  }

  function label(item, el) {
    const photo = store.state.photos[item.index];
    el.setAttribute('aria-label', describeOperation(item, photo, viewEnd()));
    el.dataset.outcome = item.end == null ? 'running' : item.outcome;
    tips.refresh(el);
  }

  function onModel(kind, item) {
    if (kind === 'remove') {
      const el = elements.get(item.id);
      if (el) { el.remove(); elements.delete(item.id); }
      if (el) keys.removed(el);
      if (!model.items.length) epoch = null;
      return;
    }
    if (kind !== 'add' && kind !== 'update') return; // 'own': this page's totals, for the panel
    let el = elements.get(item.id);
    if (!el) {
      el = document.createElement('button');
      el.type = 'button';
      el.tabIndex = -1;
      el.className = 'op has-tip ' + item.kind + (item.own ? ' own' : '');
      el.dataset.index = String(item.index);
      el.dataset.queue = item.queue;
      elements.set(item.id, el);
      strip.appendChild(el);
      keys.added(item, el);
    }
    place(item, el);
    label(item, el);
    schedule();
  }

  function resize() {
    plotWidth = plot.clientWidth;
    pps = Math.max(1, plotWidth) / WINDOW_SECONDS;
    placeAll();
    schedule(true);
  }

  function draw() {
    const end = viewEnd();
    if (epoch != null) strip.style.transform = 'translateX(' + (plotWidth - (end - epoch) * pps).toFixed(1) + 'px)';
    for (const item of model.items) {
      if (item.end != null) continue;
      const el = elements.get(item.id);
      if (el) el.style.width = Math.max(3, (end - item.start) * pps).toFixed(1) + 'px';
    }
    const ago = pausedAt == null ? 0 : back + (model.serverNow() - pausedAt);
    const marks = axis.children;
    for (let i = 0; i < marks.length; i += 1) {
      const s = Number(marks[i].dataset.seconds) + ago;
      // (only when it changes: a text written again is laid out again, 15 times a second)
      setText(marks[i], s < 0.5 ? 'now' : '−' + Math.round(s) + ' s');
    }
  }

  function tick(t) {
    frame = 0;
    if (!visibleNow()) return;
    if (t - lastDraw >= 66) { // about 15 frames a second is plenty
      lastDraw = t;
      model.prune();
      draw();
    }
    if (pausedAt == null && (model.running > 0 || model.items.length)) schedule();
  }

  function schedule(force) {
    if (force) lastDraw = 0;
    if (!frame) frame = requestAnimationFrame(tick);
  }

  function setPaused(paused) {
    pausedAt = paused ? model.serverNow() : null;
    back = 0;
    controls.pause.setAttribute('aria-pressed', String(paused));
    controls.pause.textContent = paused ? 'Resume' : 'Pause';
    controls.scrub.disabled = !paused;
    controls.scrub.value = '0';
    controls.scrub.max = String(HISTORY_SECONDS - WINDOW_SECONDS);
    root.classList.toggle('is-paused', paused);
    schedule(true);
  }

  function setFilter(mine) {
    root.dataset.filter = mine ? 'mine' : 'all';
    keys.filtered();
    controls.title.textContent = mine ? 'Operations: this page' : 'Operations: all viewers';
  }

  root.addEventListener('click', (event) => {
    const el = event.target.closest('.op');
    if (el) onSelect(Number(el.dataset.index));
  });
  controls.pause.addEventListener('click', () => setPaused(pausedAt == null));
  controls.scrub.addEventListener('input', () => { back = Number(controls.scrub.value) || 0; schedule(true); draw(); });
  for (const radio of controls.filter) radio.addEventListener('change', () => { if (radio.checked) setFilter(radio.value === 'mine'); });
  new ResizeObserver(() => resize()).observe(plot);
  document.addEventListener('visibilitychange', () => schedule(true));
  model.subscribe(onModel);
  setFilter(false);

  return {
    /** The number of tracks of each queue: the server's concurrency or its most at once, the larger. */
    setTracks(download, filtration) { if (tracks.configure(download, filtration)) placeAll(); },
    schedule,
    get paused() { return pausedAt != null; },
    /** The tracks drawn per queue. */
    get tracks() { return tracks.counts; },
  };
}
