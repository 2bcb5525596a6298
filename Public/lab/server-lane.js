// A lane the server runs: its viewer is a viewer like a list tab's, with a store of its own fed by
// the page's one event stream (events.js over channel.js) and a reporter that sends its reports one
// at a time and sends a failed one again (reporter.js). A row shows its final image when the
// thumbnail (or the failed mark) has loaded in the page: that is when the person sees it.

import { FAILED, url } from '../config.js';
import { createStore } from '../store.js';
import { createEventStream } from '../events.js';
import { createReporter } from '../reporter.js';
import { showRow } from './rows.js';

const FINAL = new Set(['filtered', 'failed']);

/** Runs lane `spec` ({viewer, strategy, prefetch}) over `cells` / `images`; `onChange()` when a
 * row shows its final image; `timeline.add(op)` takes the lane's operations. */
export function serverLane(spec, { images, cells, onChange, timeline, onGone }) {
  const store = createStore({
    viewer: spec.viewer,
    requestedStrategy: null,
    serverStrategy: { strategy: spec.strategy, prefetch: spec.prefetch || 0 },
  });
  const shown = cells.map(() => false);
  const asked = cells.map(() => null);
  images.forEach((img, index) => {
    const settle = () => {
      if (img.dataset.final !== 'true') return;
      shown[index] = true;
      cells[index].dataset.shown = 'final';
      onChange();
    };
    img.addEventListener('load', settle);
    img.addEventListener('error', settle);
  });

  const paint = (index) => {
    const photo = store.state.photos[index];
    if (!photo || photo.unknown || !cells[index]) return;
    showRow(cells[index], index, photo.state, photo.progress);
    if (!FINAL.has(photo.state) || asked[index] === photo.state) return;
    asked[index] = photo.state;
    images[index].dataset.final = 'true';
    images[index].src = photo.state === 'filtered'
      ? url(`/photos/${index}/thumbnail?viewer=${encodeURIComponent(spec.viewer)}`)
      : FAILED;
  };
  store.subscribe((kind, detail) => {
    if (kind === 'list') cells.forEach((_, index) => paint(index));
    else if (kind === 'photos') detail.forEach(paint);
  });

  const events = createEventStream({
    store,
    onOperation: (op) => timeline.add(op),
    onGone: (reason) => onGone(`${spec.strategy} lane: ${reason}`),
  });
  const reporter = createReporter({ store, isBlocked: () => false, onUnknownViewer: (reason) => onGone(reason) });
  events.connect();
  return {
    /** Whether every row of first...last shows its final image. */
    isShown: (first, last) => shown.slice(first, last + 1).every(Boolean),
    report: (payload) => reporter.report(payload),
    reporter,
    events,
    close() { events.close(); },
  };
}
