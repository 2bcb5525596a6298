// The timeline view: one lane per slot of each queue (the server's concurrency) and, above each
// queue's slots, a lane for operations cancelled while still queued, drawn as marks. Every bar and
// mark is a button that tells on hover and focus what it was, and scrolls the list to its row when
// used. Bars sit at fixed offsets on a strip that slides as time passes; it can be paused and
// scrubbed back over the kept history, and filtered to this page's work.

import { WINDOW_SECONDS, HISTORY_SECONDS } from './timeline-model.js';
import { describeOperation } from './timeline-text.js';

const LANE = 14; // px per lane
const GAP = 6; // px between the two queues

/** Creates the view in `root` (#timeline) over `model`; `onSelect(index)` for a used bar. */
export function createTimelineView({ root, controls, model, store, tips, onSelect }) {
  const part = (role) => root.querySelector('[data-role="' + role + '"]');
  const labels = part('labels');
  const plot = part('plot');
  const strip = part('strip');
  const axis = part('axis');
  const elements = new Map(); // item id -> element
  let lanes = { download: 0, filtration: 0 };
  // The server's configured slots, and the most seen in use: rows on screen start downloads beyond
  // the configured prefetch slots (within the server's transfer bound), and get lanes of their own.
  let configured = { download: 0, filtration: 0 };
  const seen = { download: 0, filtration: 0 };
  let pps = 1; // pixels per second
  let plotWidth = 0; // as the resize observer last saw it (reading it per frame would force layouts)
  let epoch = null; // the server time of strip x = 0
  let pausedAt = null; // server time the view froze at, or null when live
  let back = 0; // seconds scrubbed back from pausedAt
  let frame = 0;
  let lastDraw = 0;

  const laneTop = (queue, slot) => (queue === 'download' ? 0 : (lanes.download + 1) * LANE + GAP)
    + (slot == null ? 0 : (slot + 1) * LANE);
  const viewEnd = () => (pausedAt == null ? model.serverNow() : pausedAt - back);
  const sheet = root.closest('details');
  const visibleNow = () => !document.hidden && (!sheet || sheet.open);

  function place(item, el) {
    if (item.slot != null && item.slot >= lanes[item.queue] && item.slot < 32) {
      seen[item.queue] = Math.max(seen[item.queue], item.slot + 1);
      applyLanes();
    }
    if (epoch == null) epoch = item.start;
    const end = item.end == null ? viewEnd() : item.end;
    el.style.left = ((item.start - epoch) * pps).toFixed(1) + 'px';
    if (item.kind === 'bar') el.style.width = Math.max(3, (end - item.start) * pps).toFixed(1) + 'px';
    el.style.top = laneTop(item.queue, item.slot) + 'px';
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
    }
    place(item, el);
    label(item, el);
    schedule();
  }

  function layoutLanes() {
    const rows = [];
    for (const queue of ['download', 'filtration']) {
      const name = queue === 'download' ? 'Download' : 'Sepia';
      rows.push({ queue, slot: null, text: 'queued', tip: 'tip-lane-queued' });
      for (let slot = 0; slot < lanes[queue]; slot += 1) rows.push({ queue, slot, text: name + ' ' + (slot + 1), tip: 'tip-lane-' + queue });
    }
    labels.replaceChildren(...rows.map((row) => {
      const el = document.createElement('div');
      el.className = 'tl-lane has-tip' + (row.slot == null ? ' queued' : '');
      el.style.top = laneTop(row.queue, row.slot) + 'px';
      el.textContent = row.text;
      el.setAttribute('aria-describedby', row.tip);
      return el;
    }));
    const height = laneTop('filtration', lanes.filtration - 1) + LANE;
    root.style.setProperty('--plot-height', height + 'px');
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
      marks[i].textContent = s < 0.5 ? 'now' : '−' + Math.round(s) + ' s';
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
  root.addEventListener('click', (event) => {
    const el = event.target.closest('.op');
    if (el) onSelect(Number(el.dataset.index));
  });
  controls.pause.addEventListener('click', () => setPaused(pausedAt == null));
  controls.scrub.addEventListener('input', () => { back = Number(controls.scrub.value) || 0; schedule(true); draw(); });
  for (const radio of controls.filter) radio.addEventListener('change', () => { if (radio.checked) setFilter(radio.value === 'mine'); });
  new ResizeObserver(() => resize()).observe(plot);
  document.addEventListener('visibilitychange', () => schedule(true));
  function applyLanes() {
    const download = Math.max(configured.download, seen.download);
    const filtration = Math.max(configured.filtration, seen.filtration);
    if (download === lanes.download && filtration === lanes.filtration) return;
    lanes = { download, filtration };
    layoutLanes();
  }

  model.subscribe(onModel);
  setFilter(false);

  return {
    /** The number of slots of each queue (the server's concurrency). */
    setLanes(download, filtration) {
      configured = { download: Math.max(1, Math.min(32, download | 0)), filtration: Math.max(1, Math.min(32, filtration | 0)) };
      applyLanes();
    },
    schedule,
    get paused() { return pausedAt != null; },
  };
}
