// What a scroll in progress tells the server, from its start to its end (scroll-end.js says when it
// has ended). `scrolling: true` BEGAN_REPORT_MS into a scroll (the server suspends the viewer's
// queued work, unless it is reading; a jump has ended by then and reports only its stop). During a
// script's scroll the rows on screen go every REPORT_MS (the server measures the pace from them: a
// reader's slow scroll keeps loading; a flick stays suspended). A person's scroll (wheel, trackpad,
// finger, scrollbar, held key) sends no rows until it stops, so nothing starts for rows it only
// passes; once it has gone more than a screen it says so once (the server knows it for a flick). Not
// told at all: a lone wheel notch (a reader's step: its stop comes within WHEEL_STILL_MS and keeps
// the reading), a press on the scrollbar that has moved less than a screen (a page: its end comes at
// the release). A key held down (auto-repeat) is one scroll, ended by its release. A presenter's
// page (`showsScroll()`) shows its followers the rows a person's scroll shows, as `showing` (nothing
// starts), every REPORT_MS and where it comes to rest.

import { config } from './config.js';
import { createScrollEnd } from './scroll-end.js';

// ScrollMotion.reportInterval on the server, served with the page.
const REPORT_MS = config.reportIntervalMs;
// How long after a scroll began the server is told: a jump by the scrollbar ends within a few ms of
// its one scroll event, and its stop would otherwise wait for the answer to that first report.
const BEGAN_REPORT_MS = 50;

/** Creates the scroll reports of `list`. `view` gives the list's `top()`, `height()`,
 * `visibleRange()`; `onStop()` reports the rows on screen once a scroll has ended. */
export function createScrollReports({ store, list, reporter, view, onStop, showsScroll }) {
  let progressTimer = null, beganTimer = null; // the next report in a scroll; the one that it began
  let lastReportedFirst = null;
  let keysHeld = false; // a key held down moves the list (auto-repeat): one scroll until released
  let startTop = 0; // where the scroll going on began
  let flickTold = false, scrollTold = false; // said it went more than a screen; said it began
  let lastShownFirst = null; // the first row of the last `showing` told in this scroll

  // A scroll began: the page says scrolling; the server is told BEGAN_REPORT_MS later (unless untold).
  function begin() {
    if (store.state.scrolling) return;
    startTop = view.top();
    flickTold = scrollTold = false;
    lastShownFirst = null;
    store.setScrolling(true);
    const tell = () => {
      beganTimer = null;
      if (!store.state.scrolling) return;
      const short = scrollEnd.pressing() && Math.abs(view.top() - startTop) < view.height();
      if (!keysHeld && (scrollEnd.loneNotch() || short)) beganTimer = setTimeout(tell, BEGAN_REPORT_MS);
      else {
        scrollTold = true;
        reporter.report({ scrolling: true });
      }
    };
    // A run of notches taken for ended that goes on is the same scroll: its rows are passed, told at once.
    beganTimer = setTimeout(tell, scrollEnd.resumed() ? 0 : BEGAN_REPORT_MS);
  }

  // The rows on screen in the middle of a script's scroll, when they changed since the last report;
  // of a person's, only that it went more than a screen, once.
  function reportProgress() {
    progressTimer = null;
    const visible = view.visibleRange();
    if (!store.state.scrolling || !visible) return;
    if (keysHeld || scrollEnd.byPerson()) {
      if (flickTold || Math.abs(view.top() - startTop) <= view.height() + 2 * view.rowHeight) {
        showScroll(visible);
        // (held keys send no scroll events to arm it again)
        if (!flickTold || (keysHeld && showsScroll())) progressTimer = setTimeout(reportProgress, REPORT_MS);
        return;
      }
      flickTold = true;
    } else if (visible.first === lastReportedFirst) {
      return;
    }
    lastReportedFirst = visible.first;
    reporter.report({ scrolling: true, first: visible.first, last: visible.last });
  }

  // A presenter's followers are shown where its person-made scroll is (no rows: nothing starts); a
  // scroll not told stays untold (`scrolling` says what the server was told).
  function showScroll(visible) {
    if (!visible || !showsScroll() || visible.first === lastShownFirst) return;
    // Only the latest report waits: one that is not a `showing` (a start, a flick's rows) stays.
    if (reporter.pending && !reporter.pending.showing) return;
    lastShownFirst = visible.first;
    reporter.report({ scrolling: scrollTold, showing: { first: visible.first, last: visible.last } });
  }

  function ended() {
    clearTimeout(progressTimer);
    clearTimeout(beganTimer);
    progressTimer = beganTimer = null;
    store.setScrolling(false);
    onStop();
  }

  const scrollEnd = createScrollEnd({ target: list, position: () => Math.max(0, list.scrollTop), onEnd: ended });
  // The browser's hint that the list came to rest (after each notch): followers are shown it at once.
  list.addEventListener('scrollend', () => {
    if (store.state.scrolling && (keysHeld || scrollEnd.byPerson())) showScroll(view.visibleRange());
  });

  return {
    /** A scroll event the page did not cause. */
    moved() {
      if (keysHeld) return;
      begin();
      if (progressTimer == null) progressTimer = setTimeout(reportProgress, REPORT_MS);
      scrollEnd.moved(view.top());
    },
    /** A key held down (auto-repeat) moves the list: one scroll, reported when the key is let go;
     * true when that ends a scroll. */
    holdKeys(held) {
      if (held === keysHeld) return false;
      keysHeld = held;
      if (held) {
        begin();
        if (progressTimer == null) progressTimer = setTimeout(reportProgress, REPORT_MS);
        return false;
      }
      if (!store.state.scrolling) return false;
      ended();
      return true;
    },
    /** The first row of a report with rows (a stop's too): a script's scroll reports only changes. */
    reported(first) { lastReportedFirst = first; },
  };
}
