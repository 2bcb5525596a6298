// The lab's figures: each lane's live line under its name, and the summary table at the end of a
// trace. Server lanes' figures come from GET /api/labs/ID (measured where the work happens); the
// browser lane's from this page (its stops' times, Resource Timing's bytes).

import { formatBytes, formatSeconds, setText } from '../format.js';

/** Nearest-rank percentile (p in 0...100), as the benchmark computes it; null for no values. */
export function percentile(values, p) {
  if (!values.length) return null;
  const ordered = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * ordered.length));
  return ordered[Math.min(rank, ordered.length) - 1];
}

const ms = (value) => (value == null ? '—' : Math.round(value) + ' ms');

/** One lane's figures, from the server's report of it (`report`) or, for the browser lane, the page. */
export function laneFigures(lane, report, browser) {
  if (lane.spec.strategy !== 'browser') {
    const stops = report ? report.stops : [];
    return {
      stops,
      downloaded: report ? report.bytesDownloaded : 0,
      wasted: report ? report.bytesWasted : 0,
      wastedCPU: report ? report.filterSecondsWasted : 0,
      aborted: report ? report.transfersAborted : 0,
      cancelled: report ? report.operationsCancelled : 0,
    };
  }
  const bytes = lane.fetchedBytes();
  let downloaded = 0;
  let wasted = 0;
  for (const [index, size] of bytes) {
    downloaded += size;
    if (!browser.seen.has(index)) wasted += size;
  }
  // The browser neither cancels a lazy image nor says what its filter cost.
  return { stops: browser.stops, downloaded, wasted, wastedCPU: null, aborted: null, cancelled: null };
}

/** The lane's live line: stops so far, last time to visible, bytes, waste. */
export function showLive(lane, figures) {
  const timed = figures.stops.filter((stop) => stop.ms != null);
  const last = timed.length ? timed[timed.length - 1].ms : null;
  const parts = [
    `${timed.length}/${figures.stops.length} stops`,
    `last ${ms(last)}`,
    `${formatBytes(figures.downloaded)} down`,
    `${formatBytes(figures.wasted)} wasted`,
  ];
  if (figures.aborted != null) parts.push(`${figures.aborted} aborted`);
  setText(lane.figures, parts.join(' · '));
}

/** The summary table's rows, one per lane. */
export function showSummary(tbody, lanes, figuresByLane) {
  const rows = lanes.map((lane, index) => {
    const figures = figuresByLane[index];
    const times = figures.stops.filter((stop) => stop.ms != null).map((stop) => stop.ms);
    const cells = [
      lane.name,
      `${times.length} of ${figures.stops.length}`,
      ms(percentile(times, 50)),
      ms(percentile(times, 95)),
      formatBytes(figures.downloaded),
      `${formatBytes(figures.wasted)} (${figures.downloaded ? Math.round((100 * figures.wasted) / figures.downloaded) : 0}%)`,
      figures.wastedCPU == null ? 'n/a' : formatSeconds(figures.wastedCPU),
      figures.aborted == null ? 'n/a' : String(figures.aborted),
      figures.cancelled == null ? 'n/a' : String(figures.cancelled),
    ];
    const tr = document.createElement('tr');
    tr.dataset.strategy = lane.spec.strategy;
    tr.dataset.downloaded = String(figures.downloaded);
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
