// What the page was given: the template's data attributes on <body> and the page's own URL.

/** The strategies a viewer can ask for, in the order the control lists them. */
export const STRATEGIES = ['eager', 'visible', 'prefetch'];

const body = document.body;
const data = body.dataset;

const whole = (text, fallback) => {
  const n = parseInt(text, 10);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
};

/** Read once at start; never changes. */
export const config = Object.freeze({
  basePath: (data.basePath || '').replace(/\/+$/, ''),
  // Public/ under its content-versioned prefix (…/static/v/HASH).
  staticBase: (data.staticBase || '').replace(/\/+$/, ''),
  viewer: data.viewer || '',
  // The server writes these from its one table of defaults (Defaults.swift); the page repeats none.
  serverStrategy: data.strategy,
  serverPrefetch: parseInt(data.prefetch, 10),
  prefetchMax: parseInt(data.prefetchMax, 10),
  rowHeight: parseInt(data.rowHeight, 10),
  // How often a script's scroll reports its rows (the server's ScrollMotion.reportInterval).
  reportIntervalMs: parseInt(data.reportIntervalMs, 10),
  // What the page and the browser's event hub agree on (HubProtocol.swift): { worker, lockPrefix, events }.
  hub: JSON.parse(data.hub),
});

/** A path under the server's base path. */
export const url = (path) => config.basePath + path;

/** A file of Public/. */
export const staticURL = (file) => config.staticBase + '/' + file;

export const PLACEHOLDER = staticURL('placeholder.svg');
export const FAILED = staticURL('failed.svg');

/** The strategy this tab's URL asks for (`?strategy=…&prefetch=N`), or null for the server's default. */
export function strategyFromURL() {
  const params = new URLSearchParams(location.search);
  const strategy = params.get('strategy');
  if (!STRATEGIES.includes(strategy)) return null;
  const prefetch = strategy === 'prefetch' ? whole(params.get('prefetch'), config.serverPrefetch) : 0;
  return { strategy, prefetch: Math.min(config.prefetchMax, prefetch) };
}

/** The row the URL says to start at (`?row=N`, 1-based as the page shows it), or 0. */
export function rowFromURL() {
  const params = new URLSearchParams(location.search);
  return Math.max(0, whole(params.get('row'), 1) - 1);
}

/** Rewrites this page's URL (no navigation, no history entry) with the given query fields;
 * null removes one. */
export function updateURL(fields) {
  const next = new URL(location.href);
  for (const [key, value] of Object.entries(fields)) {
    if (value == null) next.searchParams.delete(key);
    else next.searchParams.set(key, String(value));
  }
  if (next.href !== location.href) history.replaceState(history.state, '', next.href);
}
