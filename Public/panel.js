// The panel's figures: this page's queues (with why they are suspended) and the server's totals
// for all viewers. What each figure means is written once, in the template, as its description.
// Each figure has one source: the server's latest `queues` or `stats` event, or the timeline's tracks.

import { formatBytes, formatCount, formatSeconds, plural, setText } from './format.js';

/** The totals table's cells (`stat-dl-CELL`) and the fields of the server's queue counts they show. */
const CELLS = [['started', 'started'], ['finished', 'finished'], ['cancelled', 'cancelledRunning'], ['failed', 'failed'],
  ['executing', 'executing'], ['pending', 'pending'], ['cancelled-queued', 'cancelledQueued']];

/** Wires the panel's elements (found by id in `root`) to the store. */
export function attachPanel({ store, root, timeline }) {
  const $ = (id) => root.getElementById(id);
  let suspendedSeen = 0;
  // Set when this page stops scrolling, until the server's queues say it resumed: counts sent
  // before the server had the stop still say suspended, and would hold the badge after the stop.
  let stopping = false;
  let suspended = false; // as the server last said

  // Both queues of a viewer are suspended together: while it flicks, which the server says with
  // each report's answer (ViewportHandler). The badge goes as soon as the page stops (the stop's
  // report resumes them), and keeps its place when hidden (app.css), so it moves nothing.
  function drawBadge() {
    for (const prefix of ['dl', 'ft']) $(prefix + '-queue').classList.toggle('is-suspended', suspended && !stopping);
  }
  function showSuspended(on) {
    suspended = on;
    if (!on) stopping = false;
    drawBadge();
  }

  function showQueues() {
    const queues = store.state.queues || {};
    const dl = queues.download || {};
    const ft = queues.filtration || {};
    setText($('dl-pending'), formatCount(dl.pending));
    setText($('dl-executing'), formatCount(dl.executing));
    setText($('ft-pending'), formatCount(ft.pending));
    setText($('ft-executing'), formatCount(ft.executing));
    const paused = !!(dl.suspended || ft.suspended);
    if (paused) suspendedSeen += 1;
    showSuspended(paused);
    showCost(queues.work, queues.waste);
    showOwnWork();
    setText($('panel-summary'), formatCount(dl.executing) + ' downloading · ' + formatCount(ft.executing)
      + ' filtering · ' + formatCount((dl.pending || 0) + (ft.pending || 0)) + ' queued' + (paused ? ' · suspended' : ''));
  }

  // The server's count of this page's own work (the `work` and `waste` of its queues events).
  function showCost(work, waste) {
    if (!work || !(work.bytes || work.filterSeconds)) return;
    let text = formatBytes(work.bytes) + ' downloaded, ' + formatSeconds(work.filterSeconds) + ' of sepia filtering';
    if (waste && (waste.bytes || waste.filterSeconds)) {
      text += '; ' + formatBytes(waste.bytes) + ' and ' + formatSeconds(waste.filterSeconds) + ' of it for rows not seen yet';
    }
    setText($('page-cost'), text);
  }

  function showStats() {
    const stats = store.state.stats;
    for (const [prefix, key] of [['dl', 'downloads'], ['ft', 'filtrations']]) {
      const q = stats[key] || {};
      // One ledger per queue, as the server keeps it: started = finished + cancelled running + failed +
      // running; those cancelled before they started apart.
      for (const [cell, field] of CELLS) setText($('stat-' + prefix + '-' + cell), formatCount(q[field]));
    }
    setText($('stat-bytes'), formatBytes(stats.bytesDownloaded));
    setText($('stat-aborted'), formatCount(stats.transfersAborted));
    setText($('stat-cache-hits'), plural(stats.cacheHits, 'image'));
    setText($('stat-cache-bytes'), formatBytes(stats.cacheBytes));
    setText($('stat-filter-cpu'), formatSeconds(stats.filterSeconds));
    setText($('stat-ahead-bytes'), formatBytes(stats.wastedBytes));
    setText($('stat-ahead-downloads'), formatCount(stats.wastedDownloads));
    setText($('stat-ahead-cpu'), formatSeconds(stats.wastedFilterSeconds));
    setText($('stat-viewers'), plural(stats.viewers, 'viewer'));
    timeline.setTracks(Number(stats.maxConcurrentDownloads) || 1, Number(stats.maxConcurrentFiltrations) || 1);
  }

  /** The timeline's tracks, one per operation a queue runs at once, as configured or seen in use: "Most at once". */
  function showTracks(tracks) {
    setText($('stat-concurrency'), plural(tracks.download, 'download') + ' · ' + plural(tracks.filtration, 'filter'));
  }

  // This page's own operations: the server's count (its queues events' `work`, which includes work
  // done before this page's stream was open), the one count of them.
  function showOwnWork() {
    const work = store.state.queues && store.state.queues.work;
    if (!work) return;
    const { downloads, filtrations, cancelled, failed } = work;
    if (!(downloads || filtrations || cancelled || failed)) return;
    setText($('page-work'), plural(downloads, 'download') + ' and ' + plural(filtrations, 'sepia filter')
      + ' finished, ' + formatCount(cancelled) + ' cancelled' + (failed ? ', ' + formatCount(failed) + ' failed' : ''));
  }

  store.subscribe((kind) => {
    if (kind === 'scrolling') {
      stopping = !store.state.scrolling;
      drawBadge();
    }
    if (kind === 'queues') showQueues();
    else if (kind === 'stats') showStats();
  });

  return {
    showTracks,
    get suspendedSeen() { return suspendedSeen; },
  };
}
