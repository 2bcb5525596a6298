// The page's model: everything the server has said and what this tab asked for. It knows no DOM;
// views subscribe and read from it. A row's state lives here and nowhere else.
//
// The server sends the rows near this tab's viewport, not the whole list (a snapshot covers them, and
// rows coming near arrive as photo events with their names), so `photos` knows some rows and reads
// the others as unknown placeholders; the counts of each state are the server's, for the whole list,
// written only from its figures (the snapshot's and each tick's totals), never adjusted here.

import { STATES, zeroCounts, rowList, countsFrom, sameCounts, photoFrom } from './photo-records.js';

export { STATES };

/** Creates the store. `subscribe(fn)` calls fn(kind, detail) after each change, where kind is one
 * of source, list, photos (detail: the changed indices), queues, stats, scrolling, viewer,
 * strategy, active, connection, notice. */
export function createStore({ viewer, requestedStrategy, serverStrategy }) {
  const listeners = new Set();
  const emit = (kind, detail) => { for (const fn of listeners) fn(kind, detail); };

  const state = {
    viewer,
    source: { status: 'loading', count: 0, error: null, skipped: [] },
    photos: rowList(0),
    counts: zeroCounts(),
    queues: null,
    stats: null,
    scrolling: false,
    // What this tab asked for (null: the server's default) and what the server says it applies.
    requested: requestedStrategy,
    applied: null,
    serverStrategy,
    activeRow: 0,
    connection: 'connecting', // connecting, open, reconnecting, closed
    notice: null, // { kind, text, level: 'info' | 'error' }: the banner under the header
  };

  /** The server's counts of each state, for the whole list (the rows this tab knows are a few): the
   * one writer of `state.counts`. Returns whether they changed. */
  function takeCounts(states) {
    const counts = countsFrom(states && typeof states === 'object' ? states : {});
    if (sameCounts(counts, state.counts)) return false;
    state.counts = counts;
    return true;
  }

  function noteStrategy(data) {
    if (typeof data.strategy !== 'string') return;
    const applied = { strategy: data.strategy, prefetch: Number(data.prefetch) || 0 };
    const old = state.applied;
    if (old && old.strategy === applied.strategy && old.prefetch === applied.prefetch) return;
    state.applied = applied;
    emit('strategy');
  }

  return {
    get state() { return state; },
    subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); },

    setSource(raw) {
      state.source = {
        status: raw.status || 'loading',
        count: Number(raw.count) || 0,
        error: raw.error || null,
        skipped: Array.isArray(raw.skipped) ? raw.skipped : [],
      };
      emit('source');
    },

    /** A snapshot: the list's length, the rows near this tab's viewport and the counts of each
     * state. Keeps names (and so the rows' identity) when it is the same list. */
    setSnapshot(data) {
      const raws = (Array.isArray(data.photos) ? data.photos : []).filter((p) => p && typeof p === 'object');
      const count = Number.isInteger(data.count) && data.count >= 0 ? data.count : 0;
      const rows = raws.map((raw, i) => ({ raw, index: Number.isInteger(raw.index) ? raw.index : i }))
        .filter((row) => row.index >= 0 && row.index < count);
      const old = state.photos;
      const same = old.length === count && rows.every(({ raw, index }) => {
        const previous = old[index];
        return previous.unknown || previous.name === String(raw.name ?? 'Photo ' + (index + 1));
      });
      const photos = rowList(count);
      for (const { raw, index } of rows) {
        const previous = same ? old[index] : null;
        photos[index] = photoFrom(raw, index, previous && !previous.unknown ? previous : null);
      }
      state.photos = photos;
      takeCounts(data.states);
      if (state.activeRow >= count) state.activeRow = Math.max(0, count - 1);
      noteStrategy(data);
      emit('list', { same });
    },

    /** This tab tries row `index` again (`step` 1), or its try was refused (`step` -1): the row says so. */
    noteTry(index, step = 1) {
      const photo = state.photos[index];
      if (!photo || photo.unknown) return;
      state.photos[index] = { ...photo, tries: Math.max(0, (photo.tries || 0) + step), retrying: step > 0 };
      emit('photos', [index]);
    },

    /** Photo events, applied together (they come in bursts). */
    updatePhotos(raws) {
      const changed = [];
      for (const raw of raws) {
        if (raw.index < 0 || raw.index >= state.photos.length) continue;
        const previous = state.photos[raw.index];
        // The counts follow at the server's next totals (within a tick), not from here.
        state.photos[raw.index] = photoFrom(raw, raw.index, previous.unknown ? null : previous);
        changed.push(raw.index);
      }
      if (changed.length) emit('photos', changed);
    },

    setQueues(queues) {
      state.queues = queues;
      noteStrategy(queues);
      emit('queues');
    },

    setStats(stats) {
      state.stats = stats;
      emit('stats');
      if (stats && stats.states && typeof stats.states === 'object' && takeCounts(stats.states)) emit('photos', []);
    },

    setScrolling(scrolling) {
      if (state.scrolling === scrolling) return;
      state.scrolling = scrolling;
      emit('scrolling');
    },

    setViewer(id) { state.viewer = id; state.applied = null; emit('viewer'); },

    requestStrategy(requested) {
      state.requested = requested;
      emit('strategy');
    },

    setActiveRow(index) {
      const last = state.photos.length - 1;
      const next = Math.max(0, Math.min(last, index));
      if (next === state.activeRow || last < 0) return;
      state.activeRow = next;
      emit('active');
    },

    setConnection(connection) {
      if (state.connection === connection) return;
      state.connection = connection;
      emit('connection');
    },

    /** Shows a notice of a kind, or with text null takes that kind's notice away. */
    setNotice(kind, text, level = 'info') {
      if (text == null) {
        if (!state.notice || state.notice.kind !== kind) return;
        state.notice = null;
      } else {
        state.notice = { kind, text, level };
      }
      emit('notice');
    },

    /** The strategy this viewer runs by, as far as the page knows. */
    effectiveStrategy() {
      return state.applied || state.requested || { strategy: state.serverStrategy.strategy, prefetch: state.serverStrategy.prefetch };
    },
  };
}
