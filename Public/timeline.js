// The timeline view: one track per operation each queue runs at once (the server's concurrency)
// and, above each queue's tracks, one for operations cancelled while still queued, drawn as marks. Every bar and
// mark is a button that tells on hover and focus what it was, and scrolls the list to its row when
// used; together they are one Tab stop (a roving tabindex: the newest bar, or the one last
// focused), and arrow keys move between them. Bars sit at fixed offsets on a strip that slides as time passes; it can be paused and
// scrubbed back over the kept history, and filtered to this page's work.

import { WINDOW_SECONDS, HISTORY_SECONDS } from './timeline-model.js';
import { describeOperation } from './timeline-text.js';
import { setText } from './format.js';

const PLOT = 120; // px: the plot's fixed height (app.css), which the tracks share
const MAX_TRACK_HEIGHT = 14; // px per track at most
const GAP = 6; // px between the two queues
const LABELLED = 11; // px: tracks at least this tall get a label each; thinner ones one per queue

/** Creates the view in `root` (#timeline) over `model`; `onSelect(index)` for a used bar. */
export function createTimelineView({ root, controls, model, store, tips, onSelect }) {
  const part = (role) => root.querySelector('[data-role="' + role + '"]');
  const labels = part('labels');
  const plot = part('plot');
  const strip = part('strip');
  const axis = part('axis');
  const elements = new Map(); // item id -> element
  let tracks = { download: 0, filtration: 0 };
  // The server's configured tracks, and the most seen in use: rows on screen start downloads beyond
  // the prefetch permits (within the server's transfer bound), and get tracks of their own.
  let configured = { download: 0, filtration: 0 };
  const seen = { download: 0, filtration: 0 };
  let pps = 1; // pixels per second
  let plotWidth = 0; // as the resize observer last saw it (reading it per frame would force layouts)
  let epoch = null; // the server time of strip x = 0
  let pausedAt = null; // server time the view froze at, or null when live
  let back = 0; // seconds scrubbed back from pausedAt
  let frame = 0;
  let lastDraw = 0;
  let stop = null; // the bar that takes the timeline's Tab stop

  /** Makes `el` (or nothing) the timeline's one Tab stop. */
  function rove(el) {
    if (stop === el) return;
    if (stop) stop.tabIndex = -1;
    stop = el;
    if (el) el.tabIndex = 0;
  }
  const shown = (item) => root.dataset.filter !== 'mine' || item.own;
  const focusedInside = () => root.contains(document.activeElement);

  let trackHeight = MAX_TRACK_HEIGHT; // px per track: the plot's height shared by every track
  const trackTop = (queue, track) => (queue === 'download' ? 0 : (tracks.download + 1) * trackHeight + GAP)
    + (track == null ? 0 : (track + 1) * trackHeight);
  const viewEnd = () => (pausedAt == null ? model.serverNow() : pausedAt - back);
  const sheet = root.closest('details');
  const visibleNow = () => !document.hidden && (!sheet || sheet.open);

  function place(item, el) {
    if (item.track != null && item.track >= tracks[item.queue] && item.track < 32) {
      seen[item.queue] = Math.max(seen[item.queue], item.track + 1);
      applyTracks();
    }
    if (epoch == null) epoch = item.start;
    const end = item.end == null ? viewEnd() : item.end;
    el.style.left = ((item.start - epoch) * pps).toFixed(1) + 'px';
    if (item.kind === 'bar') el.style.width = Math.max(3, (end - item.start) * pps).toFixed(1) + 'px';
    el.style.top = trackTop(item.queue, item.track) + 'px';
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
      if (el && el === stop) rove(newestShown());
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
      if (shown(item) && !focusedInside()) rove(el);
    }
    place(item, el);
    label(item, el);
    schedule();
  }

  // Every track gets an equal share of the fixed plot; labels name each track while they fit, else
  // each queue's block of tracks.
  function layoutTracks() {
    trackHeight = Math.min(MAX_TRACK_HEIGHT, (PLOT - GAP) / (tracks.download + tracks.filtration + 2));
    root.style.setProperty('--track', trackHeight.toFixed(2) + 'px');
    const rows = [];
    for (const queue of ['download', 'filtration']) {
      const name = queue === 'download' ? 'Download' : 'Sepia';
      if (trackHeight >= LABELLED) {
        rows.push({ queue, track: null, span: 1, text: 'queued', tip: 'tip-track-queued' });
        for (let track = 0; track < tracks[queue]; track += 1) rows.push({ queue, track, span: 1, text: name + ' ' + (track + 1), tip: 'tip-track-' + queue });
      } else {
        rows.push({ queue, track: 0, span: tracks[queue], text: name + ' 1–' + tracks[queue], tip: 'tip-track-' + queue });
      }
    }
    labels.replaceChildren(...rows.map((row) => {
      const el = document.createElement('div');
      el.className = 'tl-track has-tip' + (row.track == null ? ' queued' : '');
      const height = row.span * trackHeight;
      el.style.top = (trackTop(row.queue, row.track) + Math.max(0, (height - 12) / 2)).toFixed(1) + 'px';
      el.textContent = row.text;
      el.setAttribute('aria-describedby', row.tip);
      return el;
    }));
    for (const item of model.items) { const el = elements.get(item.id); if (el) place(item, el); }
  }

  function resize() {
    plotWidth = plot.clientWidth;
    pps = Math.max(1, plotWidth) / WINDOW_SECONDS;
    for (const item of model.items) { const el = elements.get(item.id); if (el) place(item, el); }
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

  function newestShown() {
    for (let i = model.items.length - 1; i >= 0; i -= 1) {
      const el = elements.get(model.items[i].id);
      if (el && shown(model.items[i])) return el;
    }
    return null;
  }

  function setFilter(mine) {
    root.dataset.filter = mine ? 'mine' : 'all';
    rove(newestShown());
    controls.title.textContent = mine ? 'Operations: this page' : 'Operations: all viewers';
  }

  // Arrow keys move between the operations in view, newest last.
  function inView() {
    const end = viewEnd();
    const mine = root.dataset.filter === 'mine';
    return model.items
      .filter((item) => (item.end == null || item.end >= end - WINDOW_SECONDS) && item.start <= end && (!mine || item.own))
      .map((item) => elements.get(item.id)).filter(Boolean);
  }
  root.addEventListener('keydown', (event) => {
    const keys = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
    if (!(event.key in keys)) return;
    const list = inView();
    if (!list.length) return;
    event.preventDefault();
    const at = list.indexOf(document.activeElement);
    const step = keys[event.key];
    const next = Number.isFinite(step) ? (at < 0 ? list.length - 1 : Math.max(0, Math.min(list.length - 1, at + step)))
      : (step < 0 ? 0 : list.length - 1);
    list[next].focus();
  });
  root.addEventListener('focusin', (event) => { if (event.target.classList.contains('op')) rove(event.target); });
  root.addEventListener('click', (event) => {
    const el = event.target.closest('.op');
    if (el) onSelect(Number(el.dataset.index));
  });
  controls.pause.addEventListener('click', () => setPaused(pausedAt == null));
  controls.scrub.addEventListener('input', () => { back = Number(controls.scrub.value) || 0; schedule(true); draw(); });
  for (const radio of controls.filter) radio.addEventListener('change', () => { if (radio.checked) setFilter(radio.value === 'mine'); });
  new ResizeObserver(() => resize()).observe(plot);
  document.addEventListener('visibilitychange', () => schedule(true));
  // A track for each operation a queue runs at once as configured, and for each track in use: the
  // server's most at once (rows on screen start downloads beyond the prefetch permits), or one seen
  // here before the server's next totals say so.
  function applyTracks() {
    const download = Math.max(configured.download, seen.download);
    const filtration = Math.max(configured.filtration, seen.filtration);
    if (download === tracks.download && filtration === tracks.filtration) return;
    tracks = { download, filtration };
    layoutTracks();
  }

  model.subscribe(onModel);
  setFilter(false);

  return {
    /** The number of tracks of each queue: the server's concurrency or its most at once, the larger. */
    setTracks(download, filtration) {
      const bound = (n) => Math.max(1, Math.min(32, n | 0));
      configured = { download: bound(download), filtration: bound(filtration) };
      applyTracks();
    },
    schedule,
    get paused() { return pausedAt != null; },
    /** The tracks drawn per queue. */
    get tracks() { return { ...tracks }; },
  };
}
