// A lab lane's model, beside its rows' states (a store.js store, as the list's): which rows show
// their final image in the page, the lane's stops on the page's clock, and how many of its
// operations were cancelled. It knows no DOM; the lane's views subscribe and read from it.

/** The model of a lane of `rows` rows. `subscribe(fn)` calls fn(kind, detail) after each change,
 * where kind is one of shown (detail: the row), stops, cancelled. */
export function createLaneStore(rows) {
  const listeners = new Set();
  const emit = (kind, detail) => { for (const fn of listeners) fn(kind, detail); };
  const state = { shown: new Array(rows).fill(false), stops: [], cancelled: 0 };

  return {
    get state() { return state; },
    subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); },

    /** Row `index` shows its final image in the page (the sepia thumbnail or the failed mark). */
    markShown(index) {
      if (!(index >= 0 && index < rows) || state.shown[index]) return;
      state.shown[index] = true;
      emit('shown', index);
    },

    /** Whether every row of first...last shows its final image. */
    isShown(first, last) {
      for (let index = first; index <= last; index += 1) if (!state.shown[index]) return false;
      return true;
    },

    /** A stop on rows first...last begins at `at` (the page's clock); returns it. */
    addStop({ first, last, at }) {
      const stop = { first, last, at, ms: null, abandoned: false, notDone: false, bound: null };
      state.stops.push(stop);
      emit('stops');
      return stop;
    },

    /** Stop `stop` is done after `ms`, abandoned, or not done within `bound` ms. */
    updateStop(stop, changes) {
      Object.assign(stop, changes);
      emit('stops');
    },

    /** One of the lane's operations was cancelled. */
    noteCancelled() {
      state.cancelled += 1;
      emit('cancelled');
    },
  };
}
