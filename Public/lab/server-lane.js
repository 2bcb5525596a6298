// A lane the server runs: its viewer is a viewer like a list tab's, its rows' states in a store of
// its own (store.js) fed by the page's one event stream (events.js over channel.js), and a reporter
// that sends its reports one at a time and sends a failed one again (reporter.js). A row shows its
// final image when the thumbnail (or the failed mark) has loaded in the page: that is when the
// person sees it, and the lane's model (lane-store.js) notes it.

import { FAILED, url } from '../config.js';
import { createEventStream } from '../events.js';
import { createReporter } from '../reporter.js';

const FINAL = new Set(['filtered', 'failed']);

/** Runs lane `spec` ({viewer, strategy, prefetch}): its rows' states go to `store`, the final
 * images shown in `images` to `model`, its operations to `timeline`; `onGone(reason)` when the
 * server no longer knows its viewer; `onPresentation(data)` each `presentation` event. */
export function serverLane(spec, { images, store, model, timeline, onGone, onPresentation }) {
  // Only a row's final image is ever given to its <img>: its load, or its failure, is the row shown.
  images.forEach((img, index) => {
    const settle = () => model.markShown(index);
    img.addEventListener('load', settle);
    img.addEventListener('error', settle);
  });
  const showImage = (index) => {
    const photo = store.state.photos[index];
    if (!photo || photo.unknown || !FINAL.has(photo.state)) return;
    const src = photo.state === 'filtered' ? url(`/photos/${index}/thumbnail?viewer=${encodeURIComponent(spec.viewer)}`) : FAILED;
    if (images[index].getAttribute('src') !== src) images[index].src = src;
  };
  store.subscribe((kind, detail) => {
    if (kind === 'list') images.forEach((_, index) => showImage(index));
    else if (kind === 'photos') detail.forEach(showImage);
  });

  const events = createEventStream({
    store,
    onOperation: (op) => timeline.add(op),
    onGone: (reason) => onGone(`${spec.strategy} lane: ${reason}`),
    onPresentation,
  });
  const reporter = createReporter({ store, isBlocked: () => false, onUnknownViewer: (reason) => onGone(reason) });
  events.connect();
  return {
    report: (payload) => reporter.report(payload),
    reporter,
    events,
    close() { events.close(); },
  };
}
