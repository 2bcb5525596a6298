// The timeline's model: operations as bars on their tracks, and operations cancelled while still
// queued as marks (they never had a track). Times are the server's; the model keeps the offset to
// the page's clock. It knows no DOM.

export const WINDOW_SECONDS = 20; // what the timeline shows at once
export const HISTORY_SECONDS = 120; // what it keeps, to scrub back over
const MAX_ITEMS = 2500;

/** Creates the model. An operation is this page's work when the server says so (`mine`). */
export function createTimelineModel() {
  const listeners = new Set();
  const emit = (kind, item) => { for (const fn of listeners) fn(kind, item); };
  let items = []; // { id, kind: 'bar' | 'mark', queue, track, index, start, end, outcome, own, bytes }
  const open = new Map(); // "queue:track" -> bar
  let offset = null; // server time minus page time, in seconds
  let nextId = 1;

  const clientNow = () => performance.now() / 1000;
  const serverNow = () => (offset == null ? 0 : clientNow() + offset);

  function push(item) {
    item.id = nextId++;
    items.push(item);
    emit('add', item);
    if (items.length > MAX_ITEMS) for (const old of items.splice(0, items.length - MAX_ITEMS)) emit('remove', old);
  }

  function end(bar, time, outcome, op) {
    bar.end = time;
    bar.outcome = outcome;
    if (op && Number.isFinite(op.bytes)) bar.bytes = op.bytes;
    emit('update', bar);
  }

  function reset() {
    for (const item of items) emit('remove', item);
    items = [];
    open.clear();
  }

  /** Takes one `operation` event: `{queue, index, outcome, slot, time}` (`slot`: the track it ran on) (and `bytes`, `mine` when
   * the server sends them). */
  function add(op) {
    const time = Number(op.time);
    if (!Number.isFinite(time)) return;
    const candidate = time - clientNow();
    if (offset == null || candidate > offset) {
      offset = candidate;
    } else if (candidate < offset - 30) {
      reset(); // time went back a lot: the server restarted
      offset = candidate;
    }
    const queue = op.queue === 'filtration' ? 'filtration' : 'download';
    const index = Number(op.index);
    const own = op.mine === true;
    if (!Number.isInteger(op.slot)) {
      // Cancelled while still queued: a mark at the moment of cancel on the queue it waited in.
      const mark = { kind: 'mark', queue, track: null, index, start: time, end: time, outcome: 'cancelled', own, bytes: null };
      push(mark);
      return;
    }
    const key = queue + ':' + op.slot;
    if (op.outcome === 'started') {
      const previous = open.get(key);
      if (previous) end(previous, time, 'unknown');
      const bar = { kind: 'bar', queue, track: op.slot, index, start: time, end: null, outcome: null, own, bytes: null };
      open.set(key, bar);
      push(bar);
      return;
    }
    let bar = open.get(key);
    if (bar && bar.index === index) {
      open.delete(key);
    } else {
      // It started before this page connected: show what is known.
      bar = { kind: 'bar', queue, track: op.slot, index, start: time - 0.05, end: null, outcome: null, own, bytes: null };
      push(bar);
    }
    end(bar, time, op.outcome, op);
  }

  /** Ends the bars still running: their ends may have been missed (a snapshot replaced the events,
   * or the server restarted). With `forget`, starts afresh. */
  function closeOpen(forget) {
    const now = serverNow();
    for (const bar of open.values()) end(bar, Math.max(bar.start, now), 'unknown');
    open.clear();
    if (forget) { reset(); offset = null; }
  }

  /** Drops what is older than the history, and ends bars running implausibly long. */
  function prune() {
    const now = serverNow();
    for (const [key, bar] of open) {
      if (now - bar.start > HISTORY_SECONDS) { open.delete(key); end(bar, now, 'unknown'); }
    }
    const horizon = now - HISTORY_SECONDS;
    let drop = 0;
    while (drop < items.length && items[drop].end != null && items[drop].end < horizon) drop += 1;
    if (drop) for (const old of items.splice(0, drop)) emit('remove', old);
  }

  return {
    add,
    closeOpen,
    prune,
    serverNow,
    subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    get items() { return items; },
    get running() { return open.size; },
  };
}
