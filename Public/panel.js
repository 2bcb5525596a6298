// The panel's figures: this page's queues, or a follower's presenter's (with why they are suspended), and the server's totals
// for all viewers. What each figure means is written once, in the template, as its description.
// Each figure has one source: the server's latest `queues` or `stats` event.

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
    // A follower's panel shows its presenter's queues (the server says so in them): its title says whose.
    setText($('page-title'), queues.presenter ? 'The presenter’s queues' : 'This page’s queues');
    setText($('dl-pending'), formatCount(dl.pending));
    setText($('dl-executing'), formatCount(dl.executing));
    setText($('ft-pending'), formatCount(ft.pending));
    setText($('ft-executing'), formatCount(ft.executing));
    const paused = !!(dl.suspended || ft.suspended);
    if (paused) suspendedSeen += 1;
    showSuspended(paused);
    showCost(queues.work, queues.waste, queues.seenSince);
    showOwnWork();
    setText($('panel-summary'), formatCount(dl.executing) + ' downloading · ' + formatCount(ft.executing)
      + ' filtering · ' + formatCount((dl.pending || 0) + (ft.pending || 0)) + ' queued' + (paused ? ' · suspended' : ''));
  }

  // The server's count of this page's own work (the `work` and `waste` of its queues events). Its
  // waste goes down when this page comes to rows it had work done for ahead: the server's `seenSince`
  // says by how much, in the same line.
  function showCost(work, waste, seenSince) {
    if (!work || !(work.bytes || work.filterSeconds)) return;
    let text = formatBytes(work.bytes) + ' downloaded, ' + formatSeconds(work.filterSeconds) + ' of sepia filtering';
    const wasted = !!(waste && (waste.bytes || waste.filterSeconds));
    const since = !!(seenSince && (seenSince.bytes || seenSince.filterSeconds));
    if (wasted) {
      text += '; ' + formatBytes(waste.bytes) + ' and ' + formatSeconds(waste.filterSeconds) + ' of it for rows not seen yet';
    } else if (since) {
      text += '; none of it for rows not seen yet';
    }
    if (since) {
      text += ' (' + formatBytes(seenSince.bytes) + ' and ' + formatSeconds(seenSince.filterSeconds)
        + (wasted ? ' more were' : ' were') + ' counted so until this page came to those rows)';
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
    showSeenSince(stats);
    setText($('stat-viewers'), plural(stats.viewers, 'viewer'));
    // "Most at once": the server's one figure (since it started), the same in every tab.
    const most = (q) => Number(q && q.mostExecuting) || 0;
    setText($('stat-concurrency'), plural(most(stats.downloads), 'download') + ' · ' + plural(most(stats.filtrations), 'filter')
      + ' since the server started');
    timeline.setTracks(Math.max(Number(stats.maxConcurrentDownloads) || 1, most(stats.downloads)),
      Math.max(Number(stats.maxConcurrentFiltrations) || 1, most(stats.filtrations)));
  }

  // Why "Done for rows no viewer has seen yet" goes down: work done ahead leaves it when a viewer
  // sees its rows. The server counts that part (`seenSince*`), said under the figures it left.
  function showSeenSince(stats) {
    const bytes = Number(stats.seenSinceBytes) || 0;
    const downloads = Number(stats.seenSinceDownloads) || 0;
    const seconds = Number(stats.seenSinceFilterSeconds) || 0;
    const el = $('stat-seen-since');
    if (!(bytes || downloads || seconds)) {
      el.hidden = true;
      return;
    }
    setText(el, 'Not counted here any more: ' + formatBytes(bytes) + ', ' + plural(downloads, 'download') + ' and '
      + formatSeconds(seconds) + ' of filtering done ahead for rows a viewer has seen since.');
    el.hidden = false;
  }

  // This page's own operations: the server's count (its queues events' `work`, which includes work
  // done before this page's stream was open), the one count of them.
  function showOwnWork() {
    const work = store.state.queues && store.state.queues.work;
    if (!work) return;
    const { downloads, filtrations, cancelledRunning, cancelledQueued, failed } = work;
    if (!(downloads || filtrations || cancelledRunning || cancelledQueued || failed)) return;
    // Cancellations split as the totals table splits them: while running, and before they started.
    setText($('page-work'), plural(downloads, 'download') + ' and ' + plural(filtrations, 'sepia filter')
      + ' finished, ' + formatCount(cancelledRunning) + ' cancelled running, ' + formatCount(cancelledQueued)
      + ' cancelled queued' + (failed ? ', ' + formatCount(failed) + ' failed' : ''));
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
    get suspendedSeen() { return suspendedSeen; },
  };
}
