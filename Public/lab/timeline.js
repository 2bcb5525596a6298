// Each lane's operations over the last 20 s, as on the list's panel: one line per slot of each
// queue (downloads above, filtrations below), a bar per operation coloured by how it ended (the
// page's legend), a tick for one cancelled while still queued, and a time axis under it. Drawn on a
// canvas from the list's timeline model (shared with the list's page); its label says in words
// what the picture shows.

import { WINDOW_SECONDS, createTimelineModel } from '../timeline-model.js';

const LINE = 7; // px per slot
const GAP = 4; // px between the two queues
const COLOURS = { running: '#1a66c9', finished: '#6b4a2b', cancelled: '#d9822b', failed: '#a3261b', unknown: '#9a8f80' };

/** A timeline for one lane: `add(op)` takes its `operation` events (its cancellations counted in
 * the lane's store `lane`), `draw()` paints the window. */
export function createLaneTimeline(name, lane) {
  const model = createTimelineModel();
  const canvas = document.createElement('canvas');
  canvas.className = 'lane-timeline';
  canvas.setAttribute('role', 'img');
  const axis = document.createElement('div');
  axis.className = 'lane-axis';
  axis.setAttribute('aria-hidden', 'true');
  for (const seconds of [WINDOW_SECONDS, WINDOW_SECONDS * 3 / 4, WINDOW_SECONDS / 2, WINDOW_SECONDS / 4, 0]) {
    const mark = document.createElement('span');
    mark.textContent = seconds ? '−' + seconds + ' s' : 'now';
    axis.append(mark);
  }
  const element = document.createElement('div');
  element.className = 'lane-timeline-box';
  element.append(canvas, axis);
  // Every cancellation since the lane started (the canvas shows the last 20 s only).
  lane.subscribe((kind) => { if (kind === 'cancelled') element.dataset.cancelled = String(lane.state.cancelled); });
  /** This page's counts of the lane's operations, by how they ended (what the canvas's label says). */
  const counts = { running: 0, finished: 0, cancelled: 0, failed: 0 };
  const slots = { download: 1, filtration: 1 };
  const top = (queue, slot) => (queue === 'download' ? 0 : slots.download * LINE + GAP) + (slot == null ? 0 : slot) * LINE;

  function draw() {
    const width = canvas.clientWidth;
    const height = (slots.download + slots.filtration) * LINE + GAP;
    if (!width) return;
    const scale = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * scale) || canvas.height !== Math.round(height * scale)) {
      canvas.width = Math.round(width * scale);
      canvas.height = Math.round(height * scale);
      canvas.style.height = height + 'px';
    }
    const context = canvas.getContext('2d');
    context.setTransform(scale, 0, 0, scale, 0, 0);
    context.clearRect(0, 0, width, height);
    const now = model.serverNow();
    const x = (time) => width - ((now - time) / WINDOW_SECONDS) * width;
    for (const key of Object.keys(counts)) counts[key] = 0;
    for (const item of model.items) {
      const end = item.end == null ? now : item.end;
      if (end < now - WINDOW_SECONDS) continue;
      const outcome = item.end == null ? 'running' : item.outcome;
      if (outcome in counts) counts[outcome] += 1;
      context.fillStyle = COLOURS[outcome] || COLOURS.unknown;
      const left = x(item.start);
      context.fillRect(left, top(item.queue, item.track) + 1, Math.max(2, x(end) - left), LINE - 2);
    }
    canvas.setAttribute('aria-label', `${name}: operations in the last ${WINDOW_SECONDS} s: ${counts.running} running, ` +
      `${counts.finished} finished, ${counts.cancelled} cancelled, ${counts.failed} failed`);
  }

  return {
    element,
    counts,
    add(op) {
      if (Number.isInteger(op.slot)) slots[op.queue] = Math.max(slots[op.queue] || 1, op.slot + 1);
      if (op.outcome === 'cancelled') lane.noteCancelled();
      model.add(op);
    },
    draw() { model.prune(); draw(); },
  };
}
