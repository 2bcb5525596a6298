// The lab's figures: each lane's live line under its name, and the summary table at the end of a
// trace. Every lane's times to visible are the page's own (stops.js: from the stop to the frame
// that shows the rows); the server lanes' bytes and waste come from GET /api/labs/ID, the browser
// lane's from Resource Timing. At a trace's end its figures are frozen: the live line and the
// summary show the same ones, and what a lane does after the trace is shown apart.

import { formatBytes, formatSeconds, setText } from '../format.js';

/** Nearest-rank percentile (p in 0...100), as the benchmark computes it; null for no values. */
export function percentile(values, p) {
  if (!values.length) return null;
  const ordered = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * ordered.length));
  return ordered[Math.min(rank, ordered.length) - 1];
}

const ms = (value) => (value == null ? '—' : Math.round(value) + ' ms');

/** A stop's time for the percentiles: its own, or for one not done its bound (it took longer). */
const stopTime = (stop) => (stop.ms != null ? stop.ms : stop.notDone ? stop.bound : null);

/** A percentile of `stops`' times, saying "> bound" when it falls on a stop not done. */
function percentileText(stops, p) {
  const timed = stops.filter((stop) => stopTime(stop) != null);
  const value = percentile(timed.map(stopTime), p);
  if (value == null) return ms(null);
  const notDone = timed.some((stop) => stop.notDone && stop.bound === value) && !timed.some((stop) => stop.ms === value);
  return notDone ? `> ${ms(value)}` : ms(value);
}

/** "5 of 8 done, 2 moved on, 1 not done (> 20 s)": the stops timed, of all; those the person left
 * before the lane had finished them (not a failure of the lane: the person moved on); and those the
 * lane never finished while the trace waited. The live line and the summary both say it so. */
export function stopsText(stops) {
  const timed = stops.filter((stop) => stop.ms != null).length;
  const movedOn = stops.filter((stop) => stop.abandoned && stop.ms == null).length;
  const notDone = stops.filter((stop) => stop.notDone);
  const parts = [`${timed} of ${stops.length} done`];
  if (movedOn) parts.push(`${movedOn} moved on`);
  if (notDone.length) parts.push(`${notDone.length} not done (> ${Math.round(notDone[0].bound / 1000)} s)`);
  return parts.join(', ');
}

/** One lane's figures: its stops as the page timed them; its bytes from the server's report of it
 * (`report`) or, for the browser lane, Resource Timing (`seen`: the rows that have been on screen). */
export function laneFigures(lane, report, seen) {
  const { stops } = lane.model.state;
  if (lane.spec.strategy !== 'browser') {
    return {
      stops,
      downloaded: report.bytesDownloaded,
      wasted: report.bytesWasted,
      wastedCPU: report.filterSecondsWasted,
      aborted: report.transfersAborted,
      cancelled: report.operationsCancelled,
      // Each queue's ledger as the server keeps it (started = finished + cancelled running + failed + running).
      ledger: { downloads: report.downloadCounts, filtrations: report.filtrationCounts },
    };
  }
  const bytes = lane.fetchedBytes();
  let downloaded = 0;
  let wasted = 0;
  for (const [index, size] of bytes) {
    downloaded += size;
    if (!seen.has(index)) wasted += size;
  }
  // The browser neither cancels a lazy image nor says what its filter cost.
  return { stops, downloaded, wasted, wastedCPU: null, aborted: null, cancelled: null, ledger: null };
}

/** The lane's live line: stops so far, last time to visible, bytes, waste: `figures`, those frozen at
 * a trace's end once it has ended, and then apart what the lane did since (`now`: its figures now). */
export function showLive(lane, figures, now = null) {
  const timed = figures.stops.filter((stop) => stop.ms != null);
  const last = timed.length ? timed[timed.length - 1].ms : null;
  const parts = [
    stopsText(figures.stops),
    `last ${ms(last)}`,
    `${formatBytes(figures.downloaded)} down`,
    `${formatBytes(figures.wasted)} wasted`,
  ];
  if (figures.aborted != null) parts.push(`${figures.aborted} aborted`);
  setText(lane.figures, (now ? 'At the trace\'s end: ' : '') + parts.join(' · '));
  lane.figures.dataset.downloaded = String(figures.downloaded);
  const since = now ? now.downloaded - figures.downloaded : 0;
  setText(lane.since, since > 0 ? `Since the trace ended: ${formatBytes(since)} more down` : '');
  lane.since.hidden = !(since > 0);
  lane.since.dataset.downloaded = String(Math.max(0, since));
}

/** "12: 5 while running, 7 before they started": the lane's cancellations, from its queues' ledgers. */
function cancelledText({ cancelled, ledger }) {
  if (cancelled == null) return 'n/a';
  if (!ledger || !ledger.downloads || !ledger.filtrations) return String(cancelled);
  const running = ledger.downloads.cancelledRunning + ledger.filtrations.cancelledRunning;
  const queued = ledger.downloads.cancelledQueued + ledger.filtrations.cancelledQueued;
  return `${cancelled}: ${running} while running, ${queued} before they started`;
}

/** The summary table's rows, one per lane. */
export function showSummary(tbody, lanes, figuresByLane) {
  const rows = lanes.map((lane, index) => {
    const figures = figuresByLane[index];
    const cells = [
      lane.name,
      stopsText(figures.stops),
      percentileText(figures.stops, 50),
      percentileText(figures.stops, 95),
      formatBytes(figures.downloaded),
      `${formatBytes(figures.wasted)} (${figures.downloaded ? Math.round((100 * figures.wasted) / figures.downloaded) : 0}%)`,
      figures.wastedCPU == null ? 'n/a' : formatSeconds(figures.wastedCPU),
      figures.aborted == null ? 'n/a' : String(figures.aborted),
      cancelledText(figures),
    ];
    const tr = document.createElement('tr');
    tr.dataset.strategy = lane.spec.strategy;
    tr.dataset.downloaded = String(figures.downloaded);
    if (figures.ledger) tr.dataset.ledger = JSON.stringify(figures.ledger);
    cells.forEach((text, column) => {
      const cell = document.createElement(column === 0 ? 'th' : 'td');
      if (column === 0) cell.scope = 'row';
      cell.textContent = text;
      tr.append(cell);
    });
    return tr;
  });
  tbody.replaceChildren(...rows);
}

/** The figures at a trace's end as the server keeps them (PUT /api/labs/ID/summary): each lane's stops
 * as the page timed them, its bytes, CPU, aborts and cancellations. */
export function keptSummary(trace, frozen) {
  const ledger = (queue) => queue && { cancelledRunning: queue.cancelledRunning, cancelledQueued: queue.cancelledQueued };
  return {
    trace,
    lanes: frozen.map((figures) => ({
      stops: figures.stops.map(({ ms: time, abandoned, notDone, bound }) => ({ ms: time, abandoned, notDone, bound })),
      downloaded: figures.downloaded, wasted: figures.wasted, wastedCPU: figures.wastedCPU,
      aborted: figures.aborted, cancelled: figures.cancelled,
      ledger: figures.ledger && { downloads: ledger(figures.ledger.downloads), filtrations: ledger(figures.ledger.filtrations) },
    })),
  };
}
