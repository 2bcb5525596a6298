// The loads' queue: at most MAX_LOADS requests at once, visible rows first, only for rows on or near
// the screen, so images never take all of the browser's six connections per origin (one is the event
// stream's, one the reports'). An image is fetched by a detached Image; once loaded, a row shows the
// same URL, from the browser's memory cache. A stop's rows come on its own request (a "batch", one of
// the MAX_LOADS: stop-thumbnails.js), and ask here only for what it did not bring.

import { url, FAILED } from './config.js';
import { createStopThumbnails } from './stop-thumbnails.js';

const MAX_LOADS = 4;

const thumbnailURL = (index) => url('/photos/' + index + '/thumbnail');
// The n-th sepia preview of what has arrived of a photo still downloading: each is a URL of its own.
const partialURL = (index, n) => url('/photos/' + index + '/partial?n=' + n);

/** The image a photo's row should end up showing in its state; null for the placeholder. A row
 * that shows a preview of the bytes arrived (already sepia) keeps it until the final thumbnail. */
function wanted(photo) {
  switch (photo.state) {
    case 'downloading':
      return photo.partial ? partialURL(photo.index, photo.partial) : null;
    // Every byte is in: the final thumbnail is asked for now (unless a batch brings it), answered the
    // moment the filter is done; until then the row keeps its latest preview of the bytes arrived.
    case 'downloaded':
    case 'filtering':
    case 'filtered': return thumbnailURL(photo.index);
    case 'failed': return FAILED;
    default: return null;
  }
}

/** The page-relative urls of the images the page links as preloads. */
function preloadedImages() {
  const prefix = location.origin;
  return [...document.querySelectorAll('link[rel="preload"][as="image"]')]
    .map((link) => link.href.startsWith(prefix) ? link.href.slice(prefix.length) : link.href);
}

/** Creates the loader. `onLoaded(index)` is called when row `index` has a new image to show. */
export function createImages({ store, onLoaded }) {
  const queue = new Set(); // indices waiting for their turn to load
  const inFlight = new Map(); // url -> index
  // Urls fetched by this page, starting with the first screen's thumbnails the server had ready:
  // the page links them as preloads, so the browser has them (or is fetching them) already and a
  // row can show them at once instead of after a detached load of its own.
  const loaded = new Set(preloadedImages());
  const failures = new Map(); // url -> { count, retryAt }
  const shownPartial = new Map(); // index -> { n, src }: its latest preview of the bytes arrived, loaded
  let near = null;
  const counters = { started: 0, maxInFlight: 0 };
  const inNear = (index) => !!near && index >= near.first && index <= near.last;
  // While scrolling, only rows on screen start loading: a flick does not queue every row it passes.
  const mayLoad = (index) => inNear(index)
    && (!store.state.scrolling || (index >= near.visible.first && index <= near.visible.last));
  const ready = (src) => src === FAILED || loaded.has(src);

  /** What row `photo` shows now: its wanted image once loaded (meanwhile the latest preview of its
   * bytes arrived, or the unfiltered preview, if loaded), or null for the placeholder. Only rows near
   * the screen show images. */
  function srcFor(photo) {
    if (!inNear(photo.index)) return null;
    const final = stop.final(photo.index);
    if (final && photo.state !== 'new' && photo.state !== 'failed') return final;
    const wish = wanted(photo);
    if (wish && ready(wish)) return wish;
    if (photo.state === 'new' || photo.state === 'failed') return null;
    const partial = shownPartial.get(photo.index);
    return partial ? partial.src : null;
  }

  function needs(index) {
    const photo = store.state.photos[index];
    const wish = photo && wanted(photo);
    // Its final thumbnail came on a batch: nothing to ask (its events, behind, may still say it
    // downloads as the batch ends). The open batch brings the row's final thumbnail, and a stop's its
    // previews too (the first screen's asks for final thumbnails only: its rows ask their previews).
    if (!wish || stop.final(index) || stop.brings(index, wish)) return null;
    return ready(wish) ? null : wish;
  }

  function priority(index) {
    const { first, last } = near.visible;
    if (index >= first && index <= last) return index - first;
    const distance = index < first ? first - index : index - last;
    return 10000 + distance * 2 + (index < first ? 1 : 0);
  }

  function pump() {
    while (inFlight.size < MAX_LOADS - (stop.open ? 1 : 0) && queue.size) {
      let best = -1;
      let bestPriority = Infinity;
      const now = performance.now();
      for (const index of queue) {
        const want = needs(index);
        if (!want) { queue.delete(index); continue; }
        const failure = failures.get(want);
        if (inFlight.has(want) || (failure && failure.retryAt > now)) continue;
        const p = priority(index);
        if (p < bestPriority) { best = index; bestPriority = p; }
      }
      if (best < 0) break;
      queue.delete(best);
      load(needs(best), best);
    }
  }

  function load(src, index) {
    const image = new Image();
    image.decoding = 'async';
    // A detached image is fetched at low priority, which the browser holds back while the page
    // loads; a visible row's is what the page is for.
    const { first, last } = near.visible;
    image.fetchPriority = index >= first && index <= last ? 'high' : 'low';
    follow(src, index, image);
    image.src = src;
  }

  /** Counts `image`'s load of `src` for row `index` in flight and handles its end. */
  function follow(src, index, image) {
    inFlight.set(src, index);
    counters.started += 1;
    counters.maxInFlight = Math.max(counters.maxInFlight, inFlight.size);
    const done = (ok) => {
      image.onload = image.onerror = null;
      inFlight.delete(src);
      if (ok) {
        loaded.add(src);
        failures.delete(src);
        const n = src.includes('/partial?') ? Number(src.split('n=')[1]) : 0;
        // Loads may end out of order: a row never goes back to an earlier preview.
        if (n > (shownPartial.get(index)?.n ?? 0)) shownPartial.set(index, { n, src });
        onLoaded(index);
      } else {
        const failure = failures.get(src) || { count: 0, retryAt: 0 };
        failure.count += 1;
        // Not there yet (or gone): try again a little later, a few times.
        failure.retryAt = failure.count <= 4 ? performance.now() + 600 * failure.count : Infinity;
        failures.set(src, failure);
        if (failure.count <= 4) setTimeout(() => refresh(near), 650 * failure.count);
      }
      refresh(near);
    };
    image.onload = () => done(true);
    image.onerror = () => done(false);
  }

  const stop = createStopThumbnails({
    store,
    has: (index) => loaded.has(thumbnailURL(index)) || inFlight.has(thumbnailURL(index)),
    onFrame: (index, n, src) => {
      // A preview a batch brought, unless the row has a newer one.
      if (n > (shownPartial.get(index)?.n ?? 0)) shownPartial.set(index, { n, src });
      onLoaded(index);
    },
    onEnded: () => refresh(near),
  });

  /** Sets the rows near the screen (`{first, last, visible}` or null) and queues what they need. */
  function refresh(range) {
    near = range;
    for (const index of queue) if (!mayLoad(index)) queue.delete(index);
    if (near) for (let i = near.first; i <= near.last; i += 1) if (mayLoad(i) && needs(i)) queue.add(i);
    pump();
  }

  /** Row `index` changed state: queue its new image if it is near the screen. */
  function photoChanged(index) {
    // Asked for while on its way and not answered (the filter was cancelled, or the wait ran out):
    // the server's news that it is ready is newer than that failure.
    if (store.state.photos[index]?.state === 'filtered') failures.delete(thumbnailURL(index));
    if (mayLoad(index) && needs(index)) queue.add(index);
  }

  /** Forgets every image loaded (the list started cold): rows show placeholders until the server has them again. */
  function forget() {
    for (const kept of [queue, loaded, failures, shownPartial]) kept.clear();
    stop.forget();
  }

  return {
    stopAsk: stop.ask,
    readBatch: stop.read,
    forget,
    srcFor,
    refresh,
    /** Forgets the images that failed (the server was away), and asks for those near the screen again. */
    retryFailed() { failures.clear(); refresh(near); },
    photoChanged,
    pump,
    stats: {
      get inFlight() { return inFlight.size; },
      get queued() { return queue.size; },
      get started() { return counters.started; },
      get maxInFlight() { return counters.maxInFlight; },
      limit: MAX_LOADS,
    },
  };
}
