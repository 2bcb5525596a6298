// The lab's one scroller on the list's own scroll path: the list's viewport (viewport.js, with
// scroll-end.js) watches it, so every lane's viewer hears what a list tab's would for the same scroll:
// that a scroll began, the rows on screen during a script's scroll every REPORT_MS, a person's flick
// once it passes a screen, and the rows where it stops (each input's end as the list judges it). The
// server's ScrollMotion of each lane sees reading and flicks as the list's does. Nothing is reported
// before the lab is opened (the first scroll, or a trace's first step): its lanes wait, cold.

import { createViewport } from '../viewport.js';

/** The viewport of the lab's `scroller` over `rows` rows of `rowHeight` px; `onReport(payload)` gets
 * every report (the lanes' viewers all hear it). */
export function createLabViewport({ scroller, rows, rowHeight, onReport }) {
  // The part of the list's store the viewport reads: the row count, whether a scroll is going on,
  // and whether reports may go ('ready' once the lab is opened).
  const state = { photos: { length: rows }, scrolling: false, source: { status: 'waiting' } };
  const open = () => { state.source.status = 'ready'; };
  const store = {
    state,
    setScrolling(scrolling) {
      state.scrolling = scrolling;
      // A person's first scroll opens the lab: its first report is that the scroll began.
      if (scrolling) open();
    },
  };
  const viewport = createViewport({ store, list: scroller, reporter: { report: onReport }, rowHeight, keepsRowInURL: false });
  return Object.assign(viewport, {
    /** Opens the lab: reports go from now on (a trace's first step may be a jump). */
    open,
    /** Whether a scroll is going on (its stop has not been reported yet). */
    get scrolling() { return state.scrolling; },
  });
}
