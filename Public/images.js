// Row images: at most MAX_LOADS requests at once, visible rows first, only for rows on or near the
// screen, so images never take all of the browser's six connections per origin: one is the event
// stream's, one is for viewport reports. (Over HTTP/2, where there is one connection, the first
// screen's thumbnails are asked for all at once: see the first script in index.mustache.) An image
// is fetched by a detached Image; once it has loaded, a row shows the same URL, which the browser
// answers from its memory cache. At a stop, the final thumbnails of the rows on screen come on one
// request instead (a "batch", one of the MAX_LOADS), each the moment it is made.

import { url, FAILED } from './config.js';

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
  const earlyShown = new Set(); // rows whose final thumbnail came by the page's first script's load
  // The page's first script's asks (index.mustache): its loads, and the rows on screen it has not
  // asked for yet, which this loader asks for in its stead until the events bring the list.
  const early = window.classicPhotosEarlyImages || null;
  let near = null;
  const counters = { started: 0, maxInFlight: 0, batches: 0 };
  // After a stop, the final thumbnails of the rows on screen come on one request (GET
  // /photos/thumbnails), asked for at the stop and answered a row at a time, each the moment its
  // filter is done: no ask waits for an event (the events reach a busy page late: asked as the
  // progress they told neared the last byte, half a stop's rows were asked after they were
  // filtered), and it takes one connection for the whole screen. `batch`: the open one ({ first,
  // last, controller }); `finals`: index -> the final thumbnail a batch brought, as a data URL,
  // oldest first.
  let batch = null;
  let batchedStop = null; // the rows on screen the last batch was asked for
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
    if (earlyShown.has(photo.index) && photo.state !== 'new' && photo.state !== 'failed') return thumbnailURL(photo.index);
    const wish = wanted(photo);
    if (wish && ready(wish)) return wish;
    if (photo.state === 'new' || photo.state === 'failed') return null;
    const partial = shownPartial.get(photo.index);
    return partial ? partial.src : null;
  }

  // Whether the open batch brings (or has brought) row `index`'s final thumbnail.
  const covered = (index) => finals.has(index) || (!!batch && index >= batch.first && index <= batch.last);

  function needs(index) {
    const photo = store.state.photos[index];
    const wish = photo && wanted(photo);
    if (wish === thumbnailURL(index) && covered(index)) return null;
    return wish && !ready(wish) ? wish : null;
  }

  function priority(index) {
    const { first, last } = near.visible;
    if (index >= first && index <= last) return index - first;
    const distance = index < first ? first - index : index - last;
    return 10000 + distance * 2 + (index < first ? 1 : 0);
  }

  function pump() {
    // Before the list is known, the first screen's rows the first script had not asked for yet (as
    // many at once as it would have: over HTTP/2 all of them).
    while (early && !store.state.photos.length && inFlight.size < early.most) {
      const entry = early.next();
      if (!entry) break;
      follow(entry.src, entry.index, entry.image, entry.show);
    }
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
    follow(src, index, image, false);
    image.src = src;
  }

  /** Counts `image`'s load of `src` for row `index` in flight and handles its end. An early one
   * (asked for by the page's first script, `showEarly` its way of showing it in the row the server
   * drew) that fails is forgotten, not held back as a failure: it may have been asked before its
   * row's work started, and the row asks again when it is ready. */
  function follow(src, index, image, showEarly = null) {
    const isEarly = !!showEarly;
    inFlight.set(src, index);
    counters.started += 1;
    counters.maxInFlight = Math.max(counters.maxInFlight, inFlight.size);
    const done = (ok) => {
      image.onload = image.onerror = null;
      inFlight.delete(src);
      if (!ok && isEarly) {
        refresh(near);
        return;
      }
      if (ok) {
        loaded.add(src);
        if (isEarly) earlyShown.add(index);
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
    image.onload = () => {
      // The list shows a row once the events have brought its photo; until then the row stays as
      // the server drew it, and the first script's way shows the image there.
      if (showEarly && !store.state.photos[index]) showEarly();
      done(true);
    };
    image.onerror = () => done(false);
  }

  // The first screen's thumbnails the page's first script asked for (index.mustache), before these
  // modules ran (over HTTP/1.1 at most MAX_LOADS at once): adopted as this loader's own loads. The
  // server answered each only once its photo was filtered, so a row keeps showing one it has even
  // while the events saying so are on their way.
  for (const [src, { index, image, show }] of early ? early.loads : []) {
    if (image.complete) {
      // (its load event may be still to come: the first script's handler would ask for the next row)
      image.onload = image.onerror = null;
      if (image.naturalWidth > 0) { loaded.add(src); earlyShown.add(index); show(); }
    } else {
      follow(src, index, image, show);
    }
  }
  if (early) early.takenOver = pump;
  pump();

  /** Keeps `bytes` (of media type `type`) as row `index`'s final thumbnail, letting the oldest go
   * past MOST_FINALS: a data URL whose fragment names the thumbnail it is (the row's words say so,
   * and tests read it). A data URL, not an object URL: the renderer decodes it itself, where a blob's
   * load goes by the browser process (filtered -> screen at p50 in three alternated runs of 12
   * jumps: 27-36 ms against 36-47 for object URLs). */
  function keepFinal(index, bytes, type) {
    let binary = '';
    for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
    finals.delete(index);
    finals.set(index, 'data:' + type + ';base64,' + btoa(binary) + '#' + thumbnailURL(index));
    for (const old of finals.keys()) {
      if (finals.size <= MOST_FINALS) break;
      finals.delete(old);
    }
  }

  /** At a stop, asks for the final thumbnails of the rows on screen that do not have theirs yet, on
   * one request (the one open is kept if it covers them, else let go). */
  function askBatch() {
    if (!near || store.state.scrolling) { batchedStop = null; return; }
    // Once a stop: the rows a batch did not bring (their wait ran out) ask on their own.
    const stop = near.visible.first + '-' + near.visible.last;
    if (!store.state.photos.length || stop === batchedStop) return;
    batchedStop = stop;
    let first = -1, last = -1;
    for (let i = near.visible.first; i <= near.visible.last; i += 1) {
      const photo = store.state.photos[i];
      if (!photo || photo.state === 'failed' || finals.has(i) || loaded.has(thumbnailURL(i))) continue;
      if (first < 0) first = i;
      last = i;
    }
    if (first < 0 || (batch && batch.first <= first && batch.last >= last)) return;
    if (batch) batch.controller.abort();
    readBatch({ first, last, controller: new AbortController() });
  }

  /** Reads `b`'s answer: frames of a line `index length type`, then the image's bytes. */
  async function readBatch(b) {
    batch = b;
    counters.batches += 1;
    const text = new TextDecoder();
    let buffered = new Uint8Array(0);
    try {
      const response = await fetch(url('/photos/thumbnails?first=' + b.first + '&last=' + b.last), { signal: b.controller.signal, cache: 'no-store' });
      if (!response.ok || !response.body) return;
      const reader = response.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const joined = new Uint8Array(buffered.length + value.length);
        joined.set(buffered);
        joined.set(value, buffered.length);
        buffered = joined;
        for (;;) {
          const end = buffered.indexOf(10);
          if (end < 0) break;
          const [index, length, type] = text.decode(buffered.subarray(0, end)).split(' ');
          const row = Number(index), size = Number(length);
          if (!Number.isInteger(row) || !Number.isInteger(size) || size < 0) throw new Error('not a frame');
          if (buffered.length < end + 1 + size) break;
          keepFinal(row, buffered.slice(end + 1, end + 1 + size), type);
          buffered = buffered.slice(end + 1 + size);
          onLoaded(row);
        }
      }
    } catch (_) {
      // Let go for a newer stop, or the connection failed: the rows it did not bring ask on their own.
    } finally {
      if (batch === b) {
        batch = null;
        refresh(near);
      }
    }
  }

  /** Sets the rows near the screen (`{first, last, visible}` or null) and queues what they need. */
  function refresh(range) {
    near = range;
    askBatch();
    for (const index of queue) if (!mayLoad(index)) queue.delete(index);
    if (near) for (let i = near.first; i <= near.last; i += 1) if (mayLoad(i) && needs(i)) queue.add(i);
    pump();
  }

  /** Row `index` changed state: queue its new image if it is near the screen. */
  function photoChanged(index) {
    // The events have caught up with (or gone past) the first script's load.
    if (store.state.photos[index]?.state !== 'downloading') earlyShown.delete(index);
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
    earlyShown.clear();
    if (batch) batch.controller.abort();
    finals.clear();
  }

  return {
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
      get batches() { return counters.batches; },
      limit: MAX_LOADS,
    },
  };
}
