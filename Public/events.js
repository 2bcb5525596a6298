// The event stream: one EventSource brings every row's state, this viewer's queues, the server's
// totals and the operations for the timeline, and puts them into the store. The page's inline
// script opens it before the modules load (the snapshot is on its way meanwhile); this module takes
// it over. When the server no longer knows this viewer (it restarted), the page asks for a new
// viewer id and connects again.

import { url } from './config.js';

/** Creates the stream. `onOperation(op)` gets each timeline operation; `onSnapshot()` runs after
 * each snapshot is in the store; `onRenewed()` after the page got a new viewer id. */
export function createEventStream({ store, onOperation, onSnapshot, onRenewed }) {
  let source = null;
  let renewing = null;
  let renewAttempts = 0;
  const seen = { total: 0 };
  let lastEventId = null;
  let adoptedEarly = false;

  // Photo events come in bursts (download progress): they go to the store once per frame.
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
    pendingPhotos.set(photo.index, photo);
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
    shutdown(data) {
      store.setNotice('shutdown', 'The server is going away (' + (data.reason || 'shutting down') + '). Reconnecting…');
      store.setConnection('reconnecting');
    },
  };

  function parse(event) {
    seen[event.type] = (seen[event.type] || 0) + 1;
    seen.total += 1;
    if (event.lastEventId) lastEventId = event.lastEventId;
    try {
      return JSON.parse(event.data);
    } catch (_) {
      console.warn('unreadable', event.type, 'event:', event.data);
      return null;
    }
  }

  /** The stream the page's inline script opened while the modules loaded, with the events it
   * kept meanwhile; null when there is none for this viewer. */
  function takeEarlyStream() {
    const early = window.classicPhotosEarlyStream;
    window.classicPhotosEarlyStream = null;
    if (!early || early.viewer !== store.state.viewer || early.es.readyState === EventSource.CLOSED) {
      if (early) early.es.close();
      return null;
    }
    early.stop();
    return early;
  }

  function connect() {
    if (source) source.close();
    const early = takeEarlyStream();
    if (early) adoptedEarly = true;
    const es = early ? early.es : new EventSource(url('/events?viewer=' + encodeURIComponent(store.state.viewer)));
    source = es;
    store.setConnection('connecting');
    const opened = () => {
      if (es !== source) return;
      renewAttempts = 0;
      store.setConnection('open');
      store.setNotice('shutdown', null);
      store.setNotice('connection', null);
    };
    es.onopen = opened;
    es.onerror = () => {
      if (es !== source) return;
      if (es.readyState === EventSource.CLOSED) {
        // The server refused the stream (404 for an unknown viewer after a restart): the browser
        // will not retry by itself.
        store.setConnection('closed');
        renewViewer('event stream closed');
      } else {
        store.setConnection('reconnecting');
      }
    };
    const dispatch = (type, event) => {
      if (es !== source) return;
      const data = parse(event);
      if (!data || typeof data !== 'object') return;
      try {
        handlers[type](data);
      } catch (error) {
        console.error('handling', type, 'failed:', error);
      }
    };
    for (const type of Object.keys(handlers)) es.addEventListener(type, (event) => dispatch(type, event));
    if (early) {
      if (es.readyState === EventSource.OPEN) opened();
      for (const event of early.events) dispatch(event.type, event);
    }
  }

  /** Gets a new viewer id (POST /api/viewers, with this tab's strategy) and reconnects with it. */
  function renewViewer(why) {
    if (renewing) return renewing;
    renewing = (async () => {
      for (;;) {
        const delay = renewAttempts === 0 ? 200 : Math.min(15000, 1000 * 2 ** Math.min(4, renewAttempts - 1));
        renewAttempts += 1;
        if (renewAttempts > 2) store.setNotice('connection', 'Lost the connection to the server (' + why + '). Retrying…', 'error');
        await new Promise((resolve) => setTimeout(resolve, delay));
        try {
          const requested = store.state.requested;
          const response = await fetch(url('/api/viewers'), {
            method: 'POST',
            cache: 'no-store',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(requested ? { strategy: requested.strategy, prefetch: requested.prefetch } : {}),
          });
          if (!response.ok) throw new Error('HTTP ' + response.status);
          const data = await response.json();
          if (!data || !data.viewer) throw new Error('no viewer id');
          store.setViewer(String(data.viewer));
          break;
        } catch (error) {
          console.warn('new viewer id failed:', error);
        }
      }
      renewing = null;
      connect();
      onRenewed();
    })();
    return renewing;
  }

  // A page that goes says so (DELETE /api/viewers/ID), so the server drops its viewer at once, not
  // when its stream is noticed gone: every other tab's viewer count follows. One kept in the
  // back/forward cache gets a new viewer when it is shown again.
  let left = false;
  addEventListener('pagehide', () => {
    if (source) source.close();
    left = true;
    fetch(url('/api/viewers/' + encodeURIComponent(store.state.viewer)), { method: 'DELETE', keepalive: true }).catch(() => {});
  });
  addEventListener('pageshow', (event) => {
    if (!event.persisted || !left) return;
    left = false;
    renewViewer('the page came back from the back/forward cache');
  });

  // A hidden tab's photo events wait for the timeout; coming back shows them at once.
  document.addEventListener('visibilitychange', () => { if (!document.hidden) flushPhotos(); });

  return {
    connect,
    renewViewer,
    get renewing() { return renewing != null; },
    get readyState() { return source ? ['connecting', 'open', 'closed'][source.readyState] : 'none'; },
    get lastEventId() { return lastEventId; },
    /** Whether the stream the page's inline script opened was taken over. */
    get adoptedEarly() { return adoptedEarly; },
    seen,
  };
}
