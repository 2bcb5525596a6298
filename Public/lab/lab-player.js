// The lab's scripted traces: a trace (or all four) played on a cold lab (the running one if no lane
// has worked yet), driving the lanes' one scroller as a person would: a script's scroll (its stop
// once it has stood still) or a jump the page makes, each stop's dwell, and an impatient step's
// shorter wait. The figures are frozen at its end, shown as the summary and kept with the lab (a
// presented lab's followers show it).

import { config, url } from '../config.js';
import { TRACE_NAMES, allSteps, traceSteps } from './traces.js';
import { keptSummary, showLive, showSummary } from './summary.js';

const { rowHeight } = config;
/** A trace moves on from a stop whose rows are not all done after this long, as the benchmark does. */
const STOP_BOUND_MS = 20000;

/** The player of the lab page: `lab()` the running lab, `startLab()` starts a cold one, `figures(lab)`
 * reads every lane's figures; `status` the line that says where a trace is. */
export function createLabPlayer({ lab, startLab, figures, say, status, summaryTable, traceButtons }) {
  let playing = false;

  /** Resolves once the viewport has reported the stop of the scroll going on. */
  function untilStopped(current) {
    return new Promise((resolve) => {
      const check = () => {
        if (current.viewport.scrolling) return;
        current.waiters.delete(check);
        resolve();
      };
      current.waiters.add(check);
      check();
    });
  }

  /** Waits until every lane shows the rows of the last stop, or `boundMs` passes. */
  function untilDone(current, boundMs) {
    return new Promise((resolve) => {
      const check = () => {
        if (current.clock.settled) finish();
      };
      const finish = () => { clearTimeout(timer); current.waiters.delete(check); resolve(); };
      const timer = setTimeout(finish, boundMs);
      current.waiters.add(check);
      check();
    });
  }

  const pause = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

  /** Scrolls smoothly to `top` over `seconds`, as a hand on a wheel would (scroll events included). */
  function scrollTo(scroller, top, seconds) {
    const from = scroller.scrollTop;
    const start = performance.now();
    return new Promise((resolve) => {
      const frame = (now) => {
        const t = Math.min(1, (now - start) / (seconds * 1000));
        scroller.scrollTop = from + (top - from) * t;
        if (t < 1) requestAnimationFrame(frame); else resolve();
      };
      requestAnimationFrame(frame);
    });
  }

  /** Plays trace `name` (or all four), then shows the summary, the figures frozen at its end. */
  async function play(name) {
    if (!lab() || playing) return;
    playing = true;
    traceButtons.forEach((button) => { button.disabled = true; });
    const current = lab().reported ? await startLab() : lab();
    if (!current) {
      playing = false;
      traceButtons.forEach((button) => { button.disabled = false; });
      return;
    }
    // The lanes on screen while the trace plays, with the line that says where it is (a laptop's
    // window shows the form above them otherwise).
    status.scrollIntoView({ block: 'start' });
    current.viewport.open();
    const visible = current.viewport.visibleRange();
    const screen = visible.last - visible.first + 1;
    const steps = name === 'all' ? allSteps(current.rows, screen) : traceSteps(name, current.rows, screen);
    for (const [position, step] of steps.entries()) {
      if (lab() !== current) break;
      say(`Playing ${step.trace}: stop ${position + 1} of ${steps.length} (row ${step.first + 1})`);
      const target = Math.min(step.first * rowHeight, current.scroller.scrollHeight - current.scroller.clientHeight);
      if (step.scroll > 0 && Math.abs(current.scroller.scrollTop - target) >= 1) {
        // A script's scroll, as the list's viewport sees one: the rows on screen as it goes, its stop
        // once it has stood still.
        await scrollTo(current.scroller, target, step.scroll);
        await untilStopped(current);
      } else {
        // A jump the page makes: reported at once.
        current.viewport.jumpTo(target);
      }
      // A stop where the lanes already are (the flick's first) is not a new one: its clock runs already.
      const rows = current.viewport.visibleRange();
      const { stops } = current.lanes[0].model.state;
      const last = stops[stops.length - 1];
      if (!last || last.first !== rows.first || last.last !== rows.last) current.viewport.reportVisible();
      // An impatient step waits for the lanes a little, or not at all, before its dwell.
      const bound = step.wait == null ? STOP_BOUND_MS : step.wait * 1000;
      if (bound > 0) await untilDone(current, bound);
      // A lane that did not show its rows within the whole bound is not done at this stop.
      if (step.wait == null) current.clock.end(STOP_BOUND_MS);
      await pause(step.dwell);
    }
    // The last stop gets the whole bound, then is done or counted as not done.
    if (lab() === current) {
      await untilDone(current, STOP_BOUND_MS);
      current.clock.end(STOP_BOUND_MS);
    }
    playing = false;
    traceButtons.forEach((button) => { button.disabled = false; });
    if (lab() !== current) return;
    const now = await figures(current).catch(() => null);
    if (now) {
      const all = now.lanes;
      // A copy: the lanes' stops go on if the person scrolls after the trace.
      current.frozen = all.map((figures) => ({ ...figures, stops: figures.stops.map((stop) => ({ ...stop })) }));
      showSummary(summaryTable, current.lanes, all);
      current.lanes.forEach((lane, index) => showLive(lane, all[index], all[index]));
      // Kept with the lab: a presented lab's followers show this summary, not figures of their own.
      fetch(url(`/api/labs/${current.id}/summary`), {
        method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(keptSummary(name, current.frozen)),
      }).catch(() => {});
    }
    say(`Trace ${name === 'all' ? TRACE_NAMES.join(', ') : name} done: the summary is below.`);
    const section = summaryTable.closest('section');
    section.dataset.ready = 'true';
    // What the trace was for: the comparison, brought into view.
    section.scrollIntoView({ block: 'nearest' });
  }

  return { play, playing: () => playing };
}
