// The scripted scroll traces of the lab: the same four as Benchmarks/scroll_traces.py (which
// builds them with the same seeded generator, so a trace repeats exactly, in the page and there),
// and the page's own "impatient" trace, which moves on before the lanes have finished (`wait`: the
// seconds it waits at most for them, 0 for not at all), as a person does, so the lanes that cancel
// show it.

/** mulberry32: a tiny seeded generator; the benchmark has the same one. Returns floats in [0, 1). */
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const TRACE_NAMES = ['flick', 'reading', 'top', 'random'];

/** Stops of the impatient trace, the seconds it stays at each before moving on, done or not, and
 * the most it waits at its last stop (eager is still far behind: it would wait the 20 s bound). */
const IMPATIENT_STOPS = 8;
const IMPATIENT_DWELL = 0.4;
const IMPATIENT_LAST_WAIT = 5;

/**
 * The steps of trace `name` over `rows` rows with `screen` rows visible: each
 * {trace, scroll (seconds of scrolling before the stop), first (row at the top when it stops),
 * dwell (seconds to stay once the rows are done), and for the impatient trace wait (the seconds to
 * wait at most for the rows to be done, 0 for not at all)}.
 */
export function traceSteps(name, rows, screen, { seed = 5, stops = 10 } = {}) {
  const lastFirst = Math.max(0, rows - screen);
  switch (name) {
    case 'flick':
      return [{ trace: name, scroll: 0, first: 0, dwell: 0.5 }, { trace: name, scroll: 0.8, first: lastFirst, dwell: 0.5 }];
    case 'reading': {
      const start = Math.min(400, Math.floor(rows * 0.4), lastFirst);
      return Array.from({ length: stops }, (_, i) => ({
        trace: name, scroll: 0.4, first: Math.min(lastFirst, start + (i + 1) * Math.floor(screen / 2)), dwell: 2,
      }));
    }
    case 'impatient': {
      // Two screens down at a time, staying just long enough for downloads to start; the last stop waits.
      return Array.from({ length: IMPATIENT_STOPS }, (_, i) => ({
        trace: name, scroll: 0.15, first: Math.min(lastFirst, (i + 1) * screen * 2),
        dwell: IMPATIENT_DWELL, wait: i === IMPATIENT_STOPS - 1 ? IMPATIENT_LAST_WAIT : 0,
      }));
    }
    case 'top':
      return [{ trace: name, scroll: 0.3, first: 0, dwell: 0.5 }];
    case 'random': {
      const next = seeded(seed);
      return Array.from({ length: stops }, () => ({
        trace: name, scroll: 0.3, first: Math.floor(next() * (lastFirst + 1)), dwell: 0.5,
      }));
    }
    default:
      return [];
  }
}

/** All four, in order, as the benchmark plays them. */
export const allSteps = (rows, screen, options) => TRACE_NAMES.flatMap((name) => traceSteps(name, rows, screen, options));
