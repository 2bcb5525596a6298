// Row images: at most MAX_LOADS requests at once, visible rows first, only for rows on or near the
// screen, so images never take all of the browser's six connections per origin: one is the event
// stream's, one is for viewport reports. (Over HTTP/2, where there is one connection, the first
// screen's thumbnails are asked for all at once: see the first script in index.mustache.) An image
// is fetched by a detached Image; once it has loaded, a row shows the same URL, which the browser
// answers from its memory cache.

import { url, FAILED } from './config.js';

const MAX_LOADS = 4;

const thumbnailURL = (index) => url('/photos/' + index + '/thumbnail');
// The n-th sepia preview of what has arrived of a photo still downloading: each is a URL of its own.
const partialURL = (index, n) => url('/photos/' + index + '/partial?n=' + n);

// How long before a photo's last byte is due the page asks for its final thumbnail: about an event's
// way to the page and a request's to the server (first_pixels.py: 20-45 ms and a few ms), with room
// for the estimate. The server holds the request until the filter is done, so the answer leaves the
// moment it is, instead of a round trip after the last byte's event reaches the page.
const ASK_AHEAD_MS = 120;
// The pace is told from this long of a download at least, and only a steady one (its latest half at
// most STEADY times as quick as the whole): bytes that came in a burst after a stop say nothing of when
// the rest will come. The ratio's spread in steady downloads as the page hears them (first_pixels.py,
// events coming in batches): 1.1 / 1.6 / 2.9 at p10 / p50 / p90; a burst after a stop is over 10.
const PACE_WINDOW_MS = 60;
const STEADY = 4;

/** The image a photo's row should end up showing in its state; null for the placeholder. A row
 * that shows a preview of the bytes arrived (already sepia) keeps it until the final thumbnail.
 * `ahead`: a photo still downloading has its final thumbnail asked for ahead of its last byte. */
function wanted(photo, ahead) {
  switch (photo.state) {
    case 'downloading':
      if (ahead) return thumbnailURL(photo.index);
      return photo.partial ? partialURL(photo.index, photo.partial) : null;
    // Every byte is in: the final thumbnail is asked for now, and the server answers it the moment
    // the filter is done (it waits for it), not a round trip after the 'filtered' event reaches us.
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
  // index -> { samples: [{ at, progress }], due, missed }: the progress the page heard of a row's
  // download and when (its clock; events come a little late, all alike), to tell its pace; `due` once
  // its final thumbnail is asked for ahead of its last byte, `missed` if that ask was not answered.
  const arrivals = new Map();
  // The page's first script's asks (index.mustache): its loads, and the rows on screen it has not
  // asked for yet, which this loader asks for in its stead until the events bring the list.
  const early = window.classicPhotosEarlyImages || null;
  let near = null;
  const counters = { started: 0, maxInFlight: 0 };

  const inNear = (index) => !!near && index >= near.first && index <= near.last;
  // While scrolling, only rows on screen start loading: a flick does not queue every row it passes.
  const mayLoad = (index) => inNear(index)
    && (!store.state.scrolling || (index >= near.visible.first && index <= near.visible.last));
  const ready = (src) => src === FAILED || loaded.has(src);

  /** Whether row `index`'s final thumbnail is asked for ahead of its last byte. */
  const askedAhead = (index) => { const a = arrivals.get(index); return !!a && a.due && !a.missed; };

  /** Notes photo `photo`'s progress; makes its final thumbnail due once every byte should be in within
   * ASK_AHEAD_MS at the steady pace seen so far. */
  function noteProgress(photo) {
    if (photo.state !== 'downloading' || !(photo.progress > 0)) {
      arrivals.delete(photo.index);
      return;
    }
    const now = performance.now();
    let a = arrivals.get(photo.index);
    if (!a) arrivals.set(photo.index, a = { samples: [], due: false, missed: false });
    const { samples } = a;
    if (samples.length && photo.progress <= samples[samples.length - 1].progress) return;
    samples.push({ at: now, progress: photo.progress });
    if (samples.length > 64) samples.splice(1, 1);
    if (a.due) return;
    if (photo.progress >= 1) { a.due = true; return; }
    const first = samples[0], span = now - first.at;
    if (span < PACE_WINDOW_MS) return;
    const half = samples.find((s) => s.at >= first.at + span / 2);
    const pace = (photo.progress - first.progress) / span; // of the photo a ms
    const latest = half && now > half.at ? (photo.progress - half.progress) / (now - half.at) : Infinity;
    if (latest > pace * STEADY) return;
    a.due = (1 - photo.progress) / pace <= ASK_AHEAD_MS;
  }

  const want = (photo) => wanted(photo, askedAhead(photo.index));

  /** What row `photo` shows now: its wanted image once loaded (meanwhile the latest preview of its
   * bytes arrived, or the unfiltered preview, if loaded), or null for the placeholder. Only rows near
   * the screen show images. */
  function srcFor(photo) {
    if (!inNear(photo.index)) return null;
    if (earlyShown.has(photo.index) && photo.state !== 'new' && photo.state !== 'failed') return thumbnailURL(photo.index);
    const wish = want(photo);
    if (wish && ready(wish)) return wish;
    if (photo.state === 'new' || photo.state === 'failed') return null;
    const partial = shownPartial.get(photo.index);
    return partial ? partial.src : null;
  }

  function needs(index) {
    const photo = store.state.photos[index];
    const wish = photo && want(photo);
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
    while (inFlight.size < MAX_LOADS && queue.size) {
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
      // An early load, or an ask ahead of the last byte (the download stalled or was cancelled), that
      // failed is no failure of the row's: it asks again once every byte is in.
      const ahead = !ok && !isEarly && src === thumbnailURL(index) && askedAhead(index)
        && store.state.photos[index]?.state === 'downloading';
      if (ahead) arrivals.get(index).missed = true;
      if (!ok && (isEarly || ahead)) {
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

  /** Sets the rows near the screen (`{first, last, visible}` or null) and queues what they need. */
  function refresh(range) {
    near = range;
    for (const index of queue) if (!mayLoad(index)) queue.delete(index);
    if (near) for (let i = near.first; i <= near.last; i += 1) if (mayLoad(i) && needs(i)) queue.add(i);
    pump();
  }

  /** Row `index` changed state: queue its new image if it is near the screen. */
  function photoChanged(index) {
    const photo = store.state.photos[index];
    if (photo) noteProgress(photo);
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
    arrivals.clear();
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
      limit: MAX_LOADS,
    },
  };
}
