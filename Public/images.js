// Row images: at most MAX_LOADS requests at once, visible rows first, only for rows on or near the
// screen, so images never take all of the browser's six connections per origin: one is the event
// stream's, one is for viewport reports. An image is fetched by a detached Image; once it has
// loaded, a row shows the same URL, which the browser answers from its memory cache. At a stop (and
// for the first screen, by the page's first script in index.mustache), the final thumbnails of the
// rows on screen come on the stop's own request instead (a "batch", one of the MAX_LOADS), each the
// moment it is made, after the previews of its bytes arrived made before it.

import { config, url, FAILED } from './config.js';
import { readFrames } from './frames.js';

const MAX_LOADS = 4;

const thumbnailURL = (index) => url('/photos/' + index + '/thumbnail');
// The n-th sepia preview of what has arrived of a photo still downloading: each is a URL of its own.
const partialURL = (index, n) => url('/photos/' + index + '/partial?n=' + n);

// At most this many rows' final thumbnails are kept as the bytes a batch brought (data URLs, about
// 20 KB each); older ones are let go, and such a row asks for its thumbnail's URL again when it is back.
const MOST_FINALS = 200;

/** The image a photo's row should end up showing in its state; null for the placeholder. A row
 * that shows a preview of the bytes arrived (already sepia) keeps it until the final thumbnail. */
function wanted(photo) {
  switch (photo.state) {
    case 'downloading':
      return photo.partial ? partialURL(photo.index, photo.partial) : null;
    // Every byte is in: the final thumbnail is asked for now (unless a stop's batch brings it), and the
    // server answers it the moment the filter is done (it waits for it), not a round trip after the
    // 'filtered' event reaches us.
    // Until then the row keeps its latest preview of the bytes arrived; the unfiltered thumbnail
    // would come only a decode ahead of the final one, so it is not asked for.
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
  // After a stop, the final thumbnails of the rows on screen come on the stop's request (POST
  // /api/viewport?thumbnails=A-B), answered a row at a time, each the moment its
  // filter is done: no ask waits for an event (the events reach a busy page late: asked as the
  // progress they told neared the last byte, half a stop's rows were asked after they were
  // filtered), and it takes one connection for the whole screen. `batch`: the open one ({ first,
  // last, controller, previews }: a stop's brings its rows' previews of their bytes arrived too);
  // `finals`: index -> the final thumbnail a batch brought, as a data URL, oldest first.
  let batch = null;
  const finals = new Map();

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
    if (finals.has(photo.index) && photo.state !== 'new' && photo.state !== 'failed') return finals.get(photo.index);
    const wish = wanted(photo);
    if (wish && ready(wish)) return wish;
    if (photo.state === 'new' || photo.state === 'failed') return null;
    const partial = shownPartial.get(photo.index);
    return partial ? partial.src : null;
  }

  const inBatch = (index) => !!batch && index >= batch.first && index <= batch.last;

  function needs(index) {
    const photo = store.state.photos[index];
    const wish = photo && wanted(photo);
    // Its final thumbnail came on a batch: nothing to ask (its events, behind, may still say it
    // downloads as the batch ends). The open batch brings the row's final thumbnail, and a stop's its
    // previews too (the first screen's asks for final thumbnails only: its rows ask their previews).
    if (!wish || finals.has(index)) return null;
    if (inBatch(index) && (wish === thumbnailURL(index) || (batch.previews && wish.includes('/partial?')))) return null;
    return ready(wish) ? null : wish;
  }

  function priority(index) {
    const { first, last } = near.visible;
    if (index >= first && index <= last) return index - first;
    const distance = index < first ? first - index : index - last;
    return 10000 + distance * 2 + (index < first ? 1 : 0);
  }

  function pump() {
    while (inFlight.size < MAX_LOADS - (batch ? 1 : 0) && queue.size) {
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

  /** Keeps `src` (a data URL named for its thumbnail: frames.js)
   * as row `index`'s final thumbnail, letting the oldest go past MOST_FINALS. A data URL, not an
   * object URL: the renderer decodes it itself, where a blob's load goes by the browser process
   * (filtered -> screen at p50 in three alternated runs of 12 jumps: 27-36 ms against 36-47). */
  function keepFinal(index, src) {
    finals.delete(index);
    finals.set(index, src);
    for (const old of finals.keys()) {
      if (finals.size <= MOST_FINALS) break;
      finals.delete(old);
    }
  }

  /** Keeps `src` (a data URL a batch brought) as row `index`'s `n`-th preview of its bytes arrived,
   * unless it has a newer one. */
  function keepPreview(index, n, src) {
    if (n > (shownPartial.get(index)?.n ?? 0)) shownPartial.set(index, { n, src });
  }

  /** The ask of a stop's report at rows `from`...`to`: the final thumbnails of those that do not
   * have theirs yet (null: none, or the open batch brings them; else the open one is let go). The ask
   * is this loader's batch from now. Once a stop: the rows a batch did not bring ask on their own. */
  function stopAsk(from, to) {
    if (!store.state.photos.length) return null; // the page's first script asked for the first screen's
    let first = -1, last = -1;
    for (let i = from; i <= to; i += 1) {
      const photo = store.state.photos[i];
      if (!photo || photo.state === 'failed' || finals.has(i) || loaded.has(thumbnailURL(i)) || inFlight.has(thumbnailURL(i))) continue;
      if (first < 0) first = i;
      last = i;
    }
    if (first < 0 || (batch && batch.first <= first && batch.last >= last)) return null;
    if (batch) batch.controller.abort();
    batch = { first, last, controller: new AbortController(), previews: true };
    return batch;
  }

  /** Reads the answer to batch `b` (`response`; null: its report failed, or `b.ended` for the first
   * screen's), each row's thumbnail shown as it comes. */
  async function readBatch(b, response) {
    batch = b;
    try {
      await (b.ended || (response && readFrames(response, config.basePath, (row, src, n) => {
        if (n) keepPreview(row, n, src);
        else keepFinal(row, src);
        onLoaded(row);
      })));
    } catch (_) {
      // Let go for a newer stop, or the connection failed: the rows it did not bring ask on their own.
    } finally {
      if (batch === b) {
        batch = null;
        refresh(near);
      }
    }
  }

  // The first screen's thumbnails, on the one request the page's first script made before these
  // modules ran (index.mustache, first-screen.js): those it brought are this loader's finals, those
  // still to come are kept and shown as they come (in the row the server drew, while the events have
  // not brought the row's photo), and the request is this loader's batch until it ends.
  const early = window.classicPhotosEarlyImages || null;
  if (early) {
    for (const [index, src] of early.finals) keepFinal(index, src);
    early.onFinal = (index, src) => {
      keepFinal(index, src);
      if (store.state.photos[index]) onLoaded(index);
      else early.show(index, src);
    };
    readBatch({ first: early.first, last: early.last, controller: early.controller, ended: early.ended, previews: false }, null);
  }

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

  /** Forgets the images that failed (the server was away), and asks for those near the screen again. */
  function retryFailed() {
    failures.clear();
    refresh(near);
  }

  /** Forgets every image loaded (the list started cold): rows show placeholders until the server has them again. */
  function forget() {
    queue.clear();
    loaded.clear();
    failures.clear();
    shownPartial.clear();
    if (batch) batch.controller.abort();
    finals.clear();
  }

  return {
    stopAsk,
    readBatch,
    forget,
    srcFor,
    refresh,
    retryFailed,
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
