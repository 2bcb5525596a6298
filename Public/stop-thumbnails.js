// The stop's stream of thumbnails: after a stop, the final thumbnails of the rows on screen come on
// the stop's own request (POST /api/viewport?thumbnails=A-B, frames.js), each the moment its filter
// is done: no ask waits for an event (events reach a busy page late: asked as the progress they told
// neared the last byte, half a stop's rows were asked after they were filtered), and the whole screen
// takes one connection. The first screen's comes the same way, asked by the page's first script
// (index.mustache, first-screen.js) before the modules ran.

import { config } from './config.js';
import { readFrames } from './frames.js';

// At most this many rows' final thumbnails are kept as the bytes a batch brought (data URLs, about
// 20 KB each); older ones are let go, and such a row asks for its thumbnail's URL again when it is back.
const MOST_FINALS = 200;

/** Creates the stream's side of the loader. `has(index)`: row `index` has its final thumbnail some
 * other way (loaded, or loading); `onFrame(index, n, src)` gets each preview (n > 0) and final (0)
 * brought; `onEnded()` once a batch ends (the rows it did not bring ask on their own). */
export function createStopThumbnails({ store, has, onFrame, onEnded }) {
  // `batch`: the open one ({ first, last, controller, previews }: a stop's brings its rows' previews
  // of their bytes arrived too); `finals`: index -> the final thumbnail a batch brought, oldest first.
  let batch = null;
  const finals = new Map();

  /** Keeps `src` as row `index`'s final thumbnail, letting the oldest go past MOST_FINALS. A data URL,
   * not an object URL: the renderer decodes it itself, where a blob's load goes by the browser process
   * (filtered -> screen at p50 in three alternated runs of 12 jumps: 27-36 ms against 36-47). */
  function keepFinal(index, src) {
    finals.delete(index);
    finals.set(index, src);
    for (const old of finals.keys()) {
      if (finals.size <= MOST_FINALS) break;
      finals.delete(old);
    }
  }

  /** The ask of a stop's report at rows `from`...`to`: the final thumbnails of those that do not
   * have theirs yet (null: none, or the open batch brings them; else the open one is let go). The ask
   * is the open batch from now. */
  function ask(from, to) {
    if (!store.state.photos.length) return null; // the page's first script asked for the first screen's
    let first = -1, last = -1;
    for (let i = from; i <= to; i += 1) {
      const photo = store.state.photos[i];
      if (!photo || photo.state === 'failed' || finals.has(i) || has(i)) continue;
      if (first < 0) first = i;
      last = i;
    }
    if (first < 0 || (batch && batch.first <= first && batch.last >= last)) return null;
    if (batch) batch.controller.abort();
    batch = { first, last, controller: new AbortController(), previews: true };
    return batch;
  }

  /** Reads the answer to batch `b` (`response`; null: its report failed; `b.ended`: the first
   * screen's, read by first-screen.js), each row's image handed on as it comes. */
  async function read(b, response) {
    batch = b;
    try {
      await (b.ended || (response && readFrames(response, config.basePath, (index, src, n) => {
        if (!n) keepFinal(index, src);
        onFrame(index, n, src);
      })));
    } catch (_) {
      // Let go for a newer stop, or the connection failed: the rows it did not bring ask on their own.
    } finally {
      if (batch === b) {
        batch = null;
        onEnded();
      }
    }
  }

  // The first screen's: those it brought are finals, those still to come are kept and shown as they
  // come (in the row the server drew, while the events have not brought the row's photo).
  const early = window.classicPhotosEarlyImages || null;
  if (early) {
    for (const [index, src] of early.finals) keepFinal(index, src);
    early.onFinal = (index, src) => {
      keepFinal(index, src);
      if (store.state.photos[index]) onFrame(index, 0, src);
      else early.show(index, src);
    };
    read({ first: early.first, last: early.last, controller: early.controller, ended: early.ended, previews: false }, null);
  }

  return {
    ask,
    read,
    /** Row `index`'s final thumbnail a batch brought, if any. */
    final: (index) => finals.get(index),
    /** Whether the open batch brings `url` (a row's final thumbnail, or with a stop's previews, a preview). */
    brings: (index, url) => !!batch && index >= batch.first && index <= batch.last
      && (url.endsWith('/thumbnail') || (batch.previews && url.includes('/partial?'))),
    get open() { return !!batch; },
    forget() {
      if (batch) batch.controller.abort();
      finals.clear();
    },
  };
}
