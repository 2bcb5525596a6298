// The browser's one event connection (a SharedWorker): every tab of the list and every lane of the
// lab is a viewer whose events ride on one `GET /events/shared` stream, however many tabs are open
// (over HTTP/1.1 a browser gives a host six connections for all its tabs). A page posts `join` for
// each of its viewers; the hub joins them to the stream (again, with each viewer's last event id,
// whenever the stream is new), hands each event to the page of its viewer, and lets a viewer go
// when its page says `leave` or closes (the page holds a Web Lock named for the viewer while it lives).
// The first page's `hello` gives the server's base path and the protocol (HubProtocol.swift): the
// event names to relay and the locks' prefix.

let base = null;
let protocol = null; // { worker, lockPrefix, events }
let source = null;
let stream = null; // { id, maxViewers } of the open stream
// A refused stream (an edge's 502 while the server is down, the server's 503 while its readers lag)
// is reopened at the pace the server asks of a dropped one (`retry: 2000`), spread a little so that
// browsers do not all come back at once: a growing delay (it reached 15 s) made a long outage's page
// wait up to that long after the server was back (Benchmarks/outage_refill.py --edge).
const REOPEN_MS = 2000;
let connection = 'connecting';
/** viewer id -> { port, lastEventId, joining } */
const viewers = new Map();
const ports = new Set();

const post = (port, message) => { try { port.postMessage(message); } catch (_) { /* the page is gone */ } };

function setConnection(state) {
  connection = state;
  for (const port of ports) post(port, { kind: 'connection', state });
}

function open() {
  if (source) source.close();
  const es = new EventSource(base + '/events/shared');
  source = es;
  setConnection('connecting');
  es.addEventListener('stream', (event) => {
    if (es !== source) return;
    stream = JSON.parse(event.data);
    setConnection('open');
    for (const viewer of viewers.keys()) join(viewer);
  });
  for (const type of protocol.events) {
    es.addEventListener(type, (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch (_) { return; }
      const entry = viewers.get(message.viewer);
      if (!entry) return;
      if (Number.isInteger(message.id)) entry.lastEventId = message.id;
      post(entry.port, { kind: 'event', type, viewer: message.viewer, id: message.id, data: message.data });
    });
  }
  // The server no longer carries a viewer (it left, was dropped, or its reader fell behind and was
  // cut off): joined again, it gets what it missed or a snapshot; an unknown one is told to its page.
  es.addEventListener('left', (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch (_) { return; }
    if (viewers.has(message.viewer)) join(message.viewer);
  });
  es.onerror = () => {
    if (es !== source) return;
    stream = null;
    if (es.readyState === EventSource.CLOSED) {
      // Refused (503 while the server's readers lag, 429 past the address's shared streams): the
      // browser will not retry by itself.
      setConnection('closed');
      refusal().then((refused) => {
        if (es !== source) return;
        // Past the address's share (many browsers behind one NAT): each page falls back to a stream
        // of its own viewer, which the server can still give, rather than saying it cannot be reached.
        // A page's next viewer (a new tab) tries the shared stream again.
        if (refused && refused.status === 429) {
          for (const [viewer, entry] of viewers) post(entry.port, { kind: 'full', viewer, reason: refused.reason });
          viewers.clear();
          return;
        }
        setTimeout(() => { if (es === source) open(); }, REOPEN_MS * (0.75 + Math.random() / 2));
      });
    } else {
      setConnection('reconnecting');
    }
  };
}

/** Why the shared stream was refused, which `EventSource` does not tell: the same request as a fetch,
 * `{ status, reason, retryAfter }`, or null when it opens now (it is closed at once) or nothing answers. */
async function refusal() {
  const controller = new AbortController();
  try {
    const response = await fetch(base + '/events/shared', { headers: { Accept: 'text/event-stream' }, cache: 'no-store', signal: controller.signal });
    if (response.ok) {
      controller.abort();
      return null;
    }
    const reason = await response.json().then((data) => data.error || '', () => '');
    return { status: response.status, reason, retryAfter: Number(response.headers.get('Retry-After')) || 0 };
  } catch (_) {
    return null;
  }
}

/** Joins `viewer` to the open stream, from its last event (the server replays or snapshots). */
async function join(viewer) {
  const entry = viewers.get(viewer);
  if (!entry || !stream) return;
  const target = stream;
  const body = { viewer };
  if (entry.lastEventId != null) body.lastEventId = entry.lastEventId;
  let response;
  try {
    response = await fetch(`${base}/api/streams/${encodeURIComponent(target.stream)}/viewers`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), cache: 'no-store',
    });
  } catch (error) {
    // The stream's own error follows, and its next `stream` event joins everyone again.
    return;
  }
  if (response.ok || viewers.get(viewer) !== entry || stream !== target) return;
  const reason = await response.json().then((data) => data.error || '', () => '');
  if (response.status === 404 && reason.startsWith('unknown viewer')) {
    viewers.delete(viewer);
    post(entry.port, { kind: 'gone', viewer, reason });
  } else if (response.status === 409) {
    viewers.delete(viewer);
    post(entry.port, { kind: 'full', viewer, reason });
  } else if (response.status >= 500 || response.status === 429) {
    setTimeout(() => join(viewer), 2000);
  }
}

function leave(viewer, port) {
  const entry = viewers.get(viewer);
  if (!entry || (port && entry.port !== port)) return;
  viewers.delete(viewer);
  if (stream) {
    fetch(`${base}/api/streams/${encodeURIComponent(stream.stream)}/viewers/${encodeURIComponent(viewer)}`, {
      method: 'DELETE', keepalive: true,
    }).catch(() => {});
  }
}

function onMessage(port, message) {
  if (!message || typeof message !== 'object') return;
  if (message.kind === 'hello') {
    if (base == null) {
      base = String(message.base || '');
      protocol = message.protocol;
      open();
    }
    post(port, { kind: 'connection', state: connection });
  } else if (message.kind === 'join') {
    const viewer = String(message.viewer);
    viewers.set(viewer, { port, lastEventId: Number.isInteger(message.lastEventId) ? message.lastEventId : null });
    // The page holds this lock while it lives: granted here, the page has gone without a word.
    if (self.navigator.locks) self.navigator.locks.request(protocol.lockPrefix + viewer, () => leave(viewer, port));
    // A page joins a new viewer once the server has answered it (a new viewer id): it is back, so a
    // refused stream is reopened now rather than at its timer.
    if (!stream && source && source.readyState === EventSource.CLOSED) open();
    else join(viewer);
  } else if (message.kind === 'leave') {
    leave(String(message.viewer), port);
  }
}

self.onconnect = (event) => {
  const port = event.ports[0];
  ports.add(port);
  port.onmessage = (message) => onMessage(port, message.data);
  port.start();
};
