// A row's record as the page keeps it, and the list of them: what the store is made of (store.js).

/** The states of a photo, as the server names them. */
export const STATES = ['new', 'downloading', 'downloaded', 'filtering', 'filtered', 'failed'];

export const zeroCounts = () => Object.fromEntries(STATES.map((s) => [s, 0]));

/** A row the server has not told this tab of yet: shown waiting, with no name. */
const unknownPhoto = (index) => ({
  index, name: '', state: 'new', progress: null, reason: null, detail: null, preview: false, partial: 0, tries: 0, unknown: true,
});

/** The list of `count` rows: an array of the known ones, read through a proxy that answers an
 * unknown row's index with a placeholder (so views index it as a full list). */
export function rowList(count) {
  const known = new Array(count);
  return new Proxy(known, {
    get(target, key, receiver) {
      if (typeof key === 'string' && key.length && key.charCodeAt(0) >= 48 && key.charCodeAt(0) <= 57) {
        const index = Number(key);
        if (Number.isInteger(index) && index < target.length) return target[index] || unknownPhoto(index);
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

/** The server's counts of each state (every state present). */
export function countsFrom(states) {
  const counts = zeroCounts();
  for (const s of STATES) counts[s] = Math.max(0, Number(states[s]) || 0);
  return counts;
}

/** Whether two sets of counts say the same. */
export const sameCounts = (a, b) => STATES.every((s) => a[s] === b[s]);

const WORKING = ['downloading', 'downloaded', 'filtering'];

/** One photo as the page keeps it. */
export function photoFrom(raw, index, previous) {
  const state = STATES.includes(raw.state) ? raw.state : 'new';
  return {
    index,
    name: previous ? previous.name : String(raw.name ?? 'Photo ' + (index + 1)),
    state,
    progress: state === 'downloading' && typeof raw.progress === 'number' ? Math.min(1, Math.max(0, raw.progress)) : null,
    reason: state === 'failed' ? (raw.reason || 'unknown error') : null,
    detail: state === 'failed' ? (raw.detail || null) : null,
    // A row being filtered shows its unfiltered thumbnail once the server says it exists.
    preview: state === 'filtering' && (raw.preview === true || (previous != null && previous.state === 'filtering' && previous.preview)),
    // A row still being worked on shows its latest preview of the bytes arrived (images.js).
    partial: WORKING.includes(state) ? Math.max(Number(raw.partial) || 0, (previous && WORKING.includes(previous.state) && previous.partial) || 0) : 0,
    // How many times this tab tried the photo again after it failed ("Try again"); none once it is sepia.
    tries: state === 'filtered' || !previous ? 0 : previous.tries || 0,
    // A try asked for and not yet heard of: any news of the photo is the try's.
    retrying: false,
  };
}

