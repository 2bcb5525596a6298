// A page's side of the browser's one event connection. Each viewer of the page (the list's tab, a
// lab lane) subscribes here; its events come through the SharedWorker `event-hub.js`, which holds
// the one `GET /events/shared` stream of all the browser's tabs. Where there is no SharedWorker, or
// the shared stream is full, a viewer gets a stream of its own (`GET /events?viewer=`).

import { config, staticURL, url } from './config.js';

/** The event names a viewer gets, the server's (HubProtocol.swift). */
export const EVENT_TYPES = config.hub.events;
const { lockPrefix: LOCK_PREFIX, worker: WORKER_NAME } = config.hub;

let hub; // undefined: not tried yet; null: none in this browser
/** viewer id -> its subscription's handlers */
const subscribers = new Map();
const connectionListeners = new Set();
let hubConnection = 'connecting';

function onHubMessage(message) {
  if (!message || typeof message !== 'object') return;
  if (message.kind === 'connection') {
    hubConnection = message.state;
    connectionListeners.forEach((fn) => fn(message.state));
    return;
  }
  const subscriber = subscribers.get(message.viewer);
  if (!subscriber) return;
  if (message.kind === 'event') subscriber.deliver(message.type, message.data, message.id);
  else if (message.kind === 'gone') subscriber.gone(message.reason);
  else if (message.kind === 'full') subscriber.ownStream();
}

/** The page's port to the hub, made once (or taken over from the page's inline script, which
 * opened it before the modules loaded, with the messages it kept meanwhile); null without one. */
function connectHub() {
  if (hub !== undefined) return hub;
  hub = null;
  const early = window.classicPhotosEarlyHub;
  window.classicPhotosEarlyHub = null;
  try {
    const port = early ? early.port : new SharedWorker(staticURL('event-hub.js'), { name: WORKER_NAME }).port;
    port.onmessage = (event) => onHubMessage(event.data);
    if (!early) {
      port.start();
      port.postMessage({ kind: 'hello', base: url(''), protocol: config.hub });
    }
    hub = { port, early, adopted: false };
  } catch (error) {
    console.warn('no shared event connection, one stream per viewer:', error);
  }
  return hub;
}

/** Holds a Web Lock named for `viewer` while the page keeps it (the hub learns that the page has
 * gone when it is released); `granted()` runs once it is held. Returns the release. */
function holdLock(viewer, granted) {
  if (!navigator.locks) {
    granted();
    return () => {};
  }
  let release = () => {};
  const released = new Promise((resolve) => { release = resolve; });
  navigator.locks.request(LOCK_PREFIX + viewer, () => { granted(); return released; });
  return release;
}

/** A stream of `viewer`'s own: `GET /events?viewer=`, from `lastEventId` when given. */
function ownStream(viewer, lastEventId, subscriber) {
  const query = 'viewer=' + encodeURIComponent(viewer) + (lastEventId != null ? '&lastEventId=' + lastEventId : '');
  const es = new EventSource(url('/events?' + query));
  es.onopen = () => subscriber.connection('open');
  es.onerror = () => {
    if (es.readyState !== EventSource.CLOSED) {
      subscriber.connection('reconnecting');
      return;
    }
    // Refused (404 for an unknown viewer after a restart): the browser does not retry by itself.
    subscriber.connection('closed');
    subscriber.gone('event stream closed');
  };
  for (const type of EVENT_TYPES) {
    es.addEventListener(type, (event) => {
      let data;
      try { data = JSON.parse(event.data); } catch (_) { return; }
      subscriber.deliver(type, data, Number(event.lastEventId) || null);
    });
  }
  return es;
}

/** Subscribes viewer `viewer`: `onEvent(type, data, id)` for each of its events, `onConnection(state)`
 * (connecting, open, reconnecting, closed), `onGone(reason)` when the server does not know it.
 * Returns `{ leave(), shared, lastEventId }`; `leave()` stops its events. */
export function subscribe(viewer, { onEvent, onConnection = () => {}, onGone = () => {} }) {
  let lastEventId = null;
  let own = null;
  let left = false;
  let release = () => {};
  const subscriber = {
    deliver(type, data, id) {
      if (left) return;
      if (Number.isInteger(id)) lastEventId = id;
      onEvent(type, data, id);
    },
    connection(state) { if (!left) onConnection(state); },
    gone(reason) { if (!left) onGone(reason); },
    ownStream() {
      if (left || own) return;
      subscribers.delete(viewer);
      release();
      own = ownStream(viewer, lastEventId, subscriber);
    },
  };
  const shared = connectHub();
  if (!shared) {
    own = ownStream(viewer, null, subscriber);
  } else {
    subscribers.set(viewer, subscriber);
    const listener = (state) => subscriber.connection(state);
    connectionListeners.add(listener);
    subscriber.connection(hubConnection);
    const early = shared.early && !shared.adopted && shared.early.viewer === viewer ? shared.early : null;
    if (early) {
      // The inline script holds the lock and joined already; what came meanwhile is handed on.
      shared.adopted = true;
      release = early.release;
      early.messages.forEach(onHubMessage);
    } else {
      release = holdLock(viewer, () => { if (!left) shared.port.postMessage({ kind: 'join', viewer }); });
    }
    subscriber.stopHub = () => {
      connectionListeners.delete(listener);
      subscribers.delete(viewer);
      shared.port.postMessage({ kind: 'leave', viewer });
      release();
    };
  }
  return {
    get shared() { return !own; },
    get lastEventId() { return lastEventId; },
    leave() {
      if (left) return;
      left = true;
      if (own) own.close();
      else if (subscriber.stopHub) subscriber.stopHub();
    },
  };
}

/** Whether the page's inline script had opened the connection before the modules ran. */
export const openedEarly = () => !!(hub && hub.adopted);
