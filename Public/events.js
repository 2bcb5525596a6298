// A viewer's events into its store: every row's state, the viewer's queues, the server's totals
// and the operations for a timeline. The events come over the browser's one event connection
// (channel.js); the list's tab and each lab lane use this alike, each with a store of its own.

import { EVENT_TYPES, openedEarly, subscribe } from './channel.js';

// Past the stream's first retry (the server asks for one every 2 s): down for longer is said.
const UNREACHABLE_AFTER_MS = 3000;

/** Creates the stream of `store`'s viewer. `onOperation(op)` gets each timeline operation;
 * `onSnapshot()` runs after each snapshot is in the store; `onGone(reason)` when the server does
 * not know the viewer (it restarted, or a lab ended); `onPresentation(data)` each `presentation` event. */
export function createEventStream({ store, onOperation = () => {}, onSnapshot = () => {}, onGone = () => {}, onPresentation = () => {} }) {
  let subscription = null;
  let connection = 'none';
  const seen = { total: 0 };

  // Photo events come in bursts (download progress): they go to the store once per frame, the
  // latest of each row's. A row's preview is said once, by one event: the progress that follows it
  // in the same frame must not drop it (a camera photo's Exif thumbnail, made from the first bytes,
  // was lost that way, and its row showed nothing until the final image).
  function merged(earlier, photo) {
    if (!earlier || (!earlier.partial && !earlier.preview)) return photo;
    return Object.assign({}, photo, {
      partial: Math.max(Number(photo.partial) || 0, Number(earlier.partial) || 0) || undefined,
      preview: photo.preview || (earlier.preview && photo.state === earlier.state) || undefined,
    });
  }
  const pendingPhotos = new Map();
  let flushScheduled = false;
  function flushPhotos() {
    if (!flushScheduled) return;
    flushScheduled = false;
    const batch = [...pendingPhotos.values()];
    pendingPhotos.clear();
    store.updatePhotos(batch);
  }
  function queuePhoto(photo) {
    if (!Number.isInteger(photo.index)) return;
    pendingPhotos.set(photo.index, merged(pendingPhotos.get(photo.index), photo));
    // A new image for a row (a preview, the final thumbnail, which is asked for as the last byte
    // arrives) is asked for at once, not a frame later.
    if (photo.partial || ['downloaded', 'filtering', 'filtered'].includes(photo.state)) {
      flushScheduled = true;
      flushPhotos();
      return;
    }
    if (flushScheduled) return;
    flushScheduled = true;
    // requestAnimationFrame does not run in hidden tabs; the timeout keeps the store current there.
    const timer = setTimeout(flushPhotos, 200);
    requestAnimationFrame(() => { clearTimeout(timer); flushPhotos(); });
  }

  const handlers = {
    source(data) { store.setSource(data); },
    snapshot(data) {
      if (!Array.isArray(data.photos)) return;
      pendingPhotos.clear();
      if (store.state.source.status !== 'ready') store.setSource({ status: 'ready', count: Number.isInteger(data.count) ? data.count : data.photos.length });
      store.setSnapshot(data);
      onSnapshot();
    },
    photo: queuePhoto,
    queues(data) { store.setQueues(data); },
    stats(data) { store.setStats(data); },
    operation(data) { onOperation(data); },
    presentation(data) { onPresentation(data); },
    shutdown(data) {
      store.setNotice('shutdown', 'The server is going away (' + (data.reason || 'shutting down') + '). Reconnecting…');
      store.setConnection('reconnecting');
    },
  };

  function onEvent(type, data) {
    seen[type] = (seen[type] || 0) + 1;
    seen.total += 1;
    if (!data || typeof data !== 'object' || !EVENT_TYPES.includes(type)) return;
    try {
      handlers[type](data);
    } catch (error) {
      console.error('handling', type, 'failed:', error);
    }
  }

  // A stream down for longer than a reconnect takes (the server crashed, or the network went) is
  // said in the banner, not only by the header's dot, which a phone shows without its words.
  let unreachable = null;

  function onConnection(state) {
    connection = state;
    store.setConnection(state);
    if (state === 'open') {
      clearTimeout(unreachable);
      unreachable = null;
      store.setNotice('shutdown', null);
      store.setNotice('connection', null);
    } else if (unreachable == null) {
      unreachable = setTimeout(() => {
        unreachable = null;
        if (connection !== 'open' && !(store.state.notice && store.state.notice.kind === 'shutdown')) {
          store.setNotice('connection', 'The server cannot be reached. Rows already shown stay; the rest load once it is back (retrying every 2 s)…', 'error');
        }
      }, UNREACHABLE_AFTER_MS);
    }
  }

  /** Subscribes the store's viewer (again, after a new viewer id: the old one leaves). */
  function connect() {
    if (subscription) subscription.leave();
    store.setConnection('connecting');
    const viewer = store.state.viewer;
    subscription = subscribe(viewer, { onEvent, onConnection, onGone: (reason) => { if (viewer === store.state.viewer) onGone(reason); } });
  }

  // A hidden tab's photo events wait for the timeout; coming back shows them at once.
  document.addEventListener('visibilitychange', () => { if (!document.hidden) flushPhotos(); });

  return {
    connect,
    /** Stops this viewer's events. */
    close() { if (subscription) subscription.leave(); subscription = null; },
    get readyState() { return connection; },
    get lastEventId() { return subscription ? subscription.lastEventId : null; },
    /** Whether the page's inline script had joined the viewer before the modules ran. */
    get adoptedEarly() { return openedEarly(); },
    /** Whether the events come over the browser's shared connection. */
    get shared() { return !!subscription && subscription.shared; },
    seen,
  };
}
