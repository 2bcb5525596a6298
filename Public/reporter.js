// Viewport reports (POST /api/viewport), one at a time: while one is in flight only the latest is
// kept. Each carries this tab's strategy when it asked for one. A stop's report asks on the same
// request for the thumbnails its rows still need (`?thumbnails=A-B`): the server takes the report,
// then answers them as they are made, so a stop is one request; its report is done once the answer
// begins, and the loader reads the rest. A server that no longer knows the viewer gets a new one; a
// server error is retried with backoff.

import { url } from './config.js';

/** Creates the reporter. `isBlocked()` says to hold reports (a new viewer id is on its way);
 * `onUnknownViewer(reason)` is called on 404 / 410. `thumbnails(first, last)` gives a stop's ask
 * ({first, last, previews, controller}) or null, and `onAnswer(ask, response)` gets its answer (null
 * when the report failed). */
export function createReporter({ store, isBlocked, onUnknownViewer, thumbnails = () => null, onAnswer = () => {} }) {
  const reporter = {
    inFlight: false,
    pending: null,
    failures: 0,
    sent: 0,
    acknowledged: 0,
    errors: 0,
    last: null, // { payload, status, at }
    lastAcknowledged: null,
    lastAcknowledgedAt: null, // performance.now() when it was
    // The rows of the last report sent: the server acts on a report as it arrives, so the
    // operations it starts can reach the event stream before the report's answer reaches the page.
    lastSentRows: null,
    retryTimer: null,
    // The tab is hidden: no rows of it are on screen, whatever the list's scroll says.
    hidden: false,

    /** Sends `payload` ({scrolling, first, last}) once the report before it is answered; while
     * the tab is hidden, only that it is. */
    report(payload) {
      if (this.hidden && !payload.hidden) return;
      this.pending = payload;
      this.send();
    },

    /** The tab was hidden or shown: a hidden one says so at once (its rows, when shown, are the
     * caller's next report). */
    setHidden(hidden) {
      this.hidden = hidden;
      if (hidden) this.report({ hidden: true, scrolling: false });
    },

    /** Sends what is pending, if anything and nothing is in flight. */
    async send() {
      if (this.inFlight || !this.pending || !store.state.viewer || isBlocked()) return;
      const payload = this.pending;
      this.pending = null;
      this.inFlight = true;
      this.sent += 1;
      const viewer = store.state.viewer;
      const requested = store.state.requested;
      const body = Object.assign({ viewer }, payload,
        requested ? { strategy: requested.strategy, prefetch: requested.prefetch } : {});
      if (body.first != null) this.lastSentRows = { first: body.first, last: body.last };
      const ask = body.scrolling === false && body.first != null ? thumbnails(body.first, body.last) : null;
      const query = ask ? '?thumbnails=' + ask.first + '-' + ask.last + (ask.previews ? '&previews=1' : '') : '';
      let retry = false;
      try {
        const response = await fetch(url('/api/viewport' + query), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
          cache: 'no-store',
          credentials: 'same-origin',
          ...(ask ? { signal: ask.controller.signal, priority: 'high' } : {}),
        });
        if (ask) onAnswer(ask, response.ok ? response : null);
        this.last = { payload: body, status: response.status, at: Date.now() };
        if (response.ok) {
          this.acknowledged += 1;
          this.lastAcknowledged = body;
          this.lastAcknowledgedAt = performance.now();
          this.failures = 0;
        } else {
          this.errors += 1;
          let reason = '';
          try { reason = (await response.json()).error || ''; } catch (_) { /* not JSON */ }
          if (response.status === 404 || response.status === 410) {
            // Report again once there is a new id (unless that has happened meanwhile).
            if (!this.pending) this.pending = payload;
            if (viewer === store.state.viewer) onUnknownViewer('viewport: ' + (reason || response.status));
          } else if (response.status >= 500) {
            retry = true;
          } else {
            console.warn('viewport report refused:', response.status, reason);
          }
        }
      } catch (error) {
        if (ask) onAnswer(ask, null);
        this.last = { payload: body, status: 0, at: Date.now(), error: String(error) };
        // Let go by the loader (a newer stop, or the list started cold): what comes next reports.
        if (error.name !== 'AbortError') {
          this.errors += 1;
          retry = true;
        }
      } finally {
        this.inFlight = false;
      }
      if (retry) {
        this.failures += 1;
        clearTimeout(this.retryTimer);
        const delay = Math.min(10000, 500 * 2 ** Math.min(5, this.failures - 1));
        this.retryTimer = setTimeout(() => {
          if (!this.pending) this.pending = payload;
          this.send();
        }, delay);
        return;
      }
      this.send();
    },
  };
  return reporter;
}
