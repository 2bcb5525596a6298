// The list tab's viewer over its life: a server that no longer knows it (it restarted) gives the
// tab a new viewer id (POST /api/viewers, with this tab's strategy) and its events follow; a page
// that goes says so (DELETE /api/viewers/ID), so the server drops its viewer at once; one kept in
// the back/forward cache gets a new viewer when it is shown again.

import { url } from './config.js';

/** Creates the renewal of `store`'s viewer; `stream` is its event stream, `onRenewed()` runs
 * once the new viewer's events are subscribed. */
export function createViewerRenewal({ store, stream, onRenewed }) {
  let renewing = null;
  let attempts = 0;

  /** Gets a new viewer id and subscribes it. */
  function renewViewer(why) {
    if (renewing) return renewing;
    renewing = (async () => {
      for (;;) {
        // Tried again at the server's retry pace (2 s, as the banner says), not a growing delay: after
        // a long outage one that had grown to 15 s kept the rows waiting that long once it was back.
        const delay = attempts === 0 ? 200 : Math.min(2000, 1000 * 2 ** (attempts - 1));
        attempts += 1;
        if (attempts > 2) store.setNotice('connection', 'Lost the connection to the server (' + why + '). Retrying…', 'error');
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
      stream.connect();
      onRenewed();
    })();
    return renewing;
  }

  // A renewal that worked: the next one starts from a short wait again.
  store.subscribe((kind) => { if (kind === 'connection' && store.state.connection === 'open') attempts = 0; });

  let left = false;
  addEventListener('pagehide', () => {
    stream.close();
    left = true;
    fetch(url('/api/viewers/' + encodeURIComponent(store.state.viewer)), { method: 'DELETE', keepalive: true }).catch(() => {});
  });
  addEventListener('pageshow', (event) => {
    if (!event.persisted || !left) return;
    left = false;
    renewViewer('the page came back from the back/forward cache');
  });

  return {
    renewViewer,
    get renewing() { return renewing != null; },
  };
}
