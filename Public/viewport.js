// The viewport reporter: tells the server what is on screen. `scrolling: true` 50 ms into a scroll
// (the server suspends this viewer's queued work, unless it is reading; a jump has ended by then and
// reports only its stop), the visible rows as soon as the scroll has ended (scroll-end.js says when,
// for each input; the server runs loadImagesForOnscreenRows), and once at start, on resize and after
// every snapshot. During a script's scroll the rows on screen go every REPORT_MS (the server measures
// the pace from them: a reader's slow scroll keeps loading, with rows read ahead; a flick stays
// suspended). A person's scroll (wheel, trackpad, finger, scrollbar, held key) sends no rows until it
// stops, so nothing starts for rows it only passes; once it has gone more than a screen it says so
// once (the server then knows it for a flick, even after reading). A lone wheel notch, a reader's
// step, is not told as a scroll at all: its stop comes within WHEEL_STILL_MS and keeps the reading.
// A press on the scrollbar is reported where its move lands: a jump in its first scroll event, a page
// or a drag at the release (scroll-end.js). A jump the page makes itself (a key, a
// click on the timeline, the row in the URL) is reported at once, without suspending; a key held
// down (auto-repeat) is one scroll, ended by its release. A script's scroll, even of one move, waits
// for stillness: a script flinging the list in big steps looks like a jump at its first step, and
// must not start work on that step's rows. The URL keeps the first visible row.

import { config, updateURL } from './config.js';
import { STILLNESS_MS, createScrollEnd } from './scroll-end.js';

// ScrollMotion.reportInterval on the server, served with the page.
const REPORT_MS = config.reportIntervalMs;
// How long after a scroll began the server is told (it suspends the viewer's queued work): a jump
// by the scrollbar ends (`scrollend`) within a few ms of its one scroll event, and its stop report
// would otherwise wait for the answer to that first one, a round trip (36 ms under load, measured).
const BEGAN_REPORT_MS = 50;

/** Creates the viewport of the scrolling element `list`; with `keepsRowInURL` (the list's) the URL
 * keeps the first visible row. While `showsScroll()` (a presenter's page), a person's scroll tells
 * the rows it shows every REPORT_MS and where it comes to rest (`scrollend`) as `showing`: its
 * followers move with it, and nothing starts. */
export function createViewport({ store, list, reporter, rowHeight, keepsRowInURL = true, showsScroll = () => false }) {
  let progressTimer = null; // the next report during a scroll
  let beganTimer = null; // the report that a scroll began
  let lastReportedFirst = null;
  let lastStop = null; // the rows of the last report at rest
  let expectedTop = null; // the scrollTop of a jump the page made itself
  let keysHeld = false; // a key held down moves the list (auto-repeat): one scroll until released
  let startTop = 0; // where the scroll going on began
  let flickTold = false; // a person's scroll said it went more than a screen
  let scrollTold = false; // the server was told this scroll began (a lone notch is not told)
  let lastShownFirst = null; // the first row of the last `showing` told in this scroll
  let resizeTimer = null;
  let lastResize = -Infinity; // when the list's height last changed
  // The list's scroll position and height as last seen (from scroll events and the resize
  // observer): reading them when asked would make the browser lay the page out at that moment.
  let top = 0;
  let height = 0; // 0 until the list has been laid out once

  const count = () => store.state.photos.length;

  /** The list's scroll position and height; before its first layout, the window's height. */
  function metrics() {
    return { top, height: height || window.innerHeight, measured: height > 0 };
  }

  /** The rows at least partly on screen, inclusive (with the list scrolled to `at`); null before
   * the list is there. */
  function visibleRange(at = top) {
    const n = count();
    const { height: h } = metrics();
    if (!n || h <= 0) return null;
    const first = Math.min(n - 1, Math.floor(at / rowHeight));
    const last = Math.min(n - 1, Math.max(first, Math.floor((at + h - 1) / rowHeight)));
    return { first, last };
  }

  /** The rows that may show an image: the visible ones and a margin, half a screen at least (the
   * server reads that far ahead, so a reader's next move shows rows whose thumbnails are already
   * here, decoded). While scrolling only the visible rows start loading (see images.js). */
  function nearRange() {
    const visible = visibleRange();
    if (!visible) return null;
    const halfScreen = Math.ceil((visible.last - visible.first + 1) / 2);
    const margin = Math.max(3, store.effectiveStrategy().prefetch, halfScreen);
    return {
      first: Math.max(0, visible.first - margin),
      last: Math.min(count() - 1, visible.last + margin),
      visible,
    };
  }

  /** Reports the rows on screen as a stop. */
  function reportVisible() {
    if (store.state.scrolling || store.state.source.status !== 'ready' || !height) return;
    const visible = visibleRange();
    if (!visible) return;
    reporter.report({ scrolling: false, first: visible.first, last: visible.last });
    lastReportedFirst = visible.first;
    lastStop = visible;
    if (keepsRowInURL) updateURL({ row: visible.first > 0 ? visible.first + 1 : null });
  }

  function onScroll() {
    top = Math.max(0, list.scrollTop);
    if (!count() || keysHeld) return;
    if (expectedTop != null && Math.abs(list.scrollTop - expectedTop) < 1) {
      expectedTop = null;
      return;
    }
    expectedTop = null;
    begin();
    if (progressTimer == null) progressTimer = setTimeout(reportProgress, REPORT_MS);
    scrollEnd.moved(top);
  }

  // A scroll began at `top`: the page says scrolling; the server is told BEGAN_REPORT_MS later (a
  // lone wheel notch, not until a second one comes).
  function begin() {
    if (store.state.scrolling) return;
    startTop = top;
    flickTold = false;
    scrollTold = false;
    lastShownFirst = null;
    store.setScrolling(true);
    const tell = () => {
      beganTimer = null;
      if (!store.state.scrolling) return;
      // Not told yet: a lone notch (a reader's step), a press on the scrollbar that has moved less
      // than a screen (a page: its end comes soon; a drag that goes on is told once it goes further).
      const short = scrollEnd.pressing() && Math.abs(top - startTop) < metrics().height;
      if (!keysHeld && (scrollEnd.loneNotch() || short)) beganTimer = setTimeout(tell, BEGAN_REPORT_MS);
      else {
        scrollTold = true;
        reporter.report({ scrolling: true });
      }
    };
    beganTimer = setTimeout(tell, BEGAN_REPORT_MS);
  }

  // The rows on screen in the middle of a script's scroll, when they changed since the last report;
  // of a person's, only that it went more than a screen, once.
  function reportProgress() {
    progressTimer = null;
    const visible = visibleRange();
    if (!store.state.scrolling || !visible) return;
    if (keysHeld || scrollEnd.byPerson()) {
      if (flickTold || Math.abs(top - startTop) <= metrics().height + 2 * rowHeight) {
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

  // A presenter's followers are shown where its person-made scroll is (no rows: nothing starts). A
  // scroll not told yet (a lone notch, a reader's step) stays untold: `scrolling` says what the
  // server was told, so the reader's work goes on.
  function showScroll(visible) {
    if (!visible || !showsScroll() || visible.first === lastShownFirst) return;
    // A report still waiting that is not a `showing` (a scroll's start, a flick's rows) is not
    // replaced: only the latest waits.
    if (reporter.pending && !reporter.pending.showing) return;
    lastShownFirst = visible.first;
    reporter.report({ scrolling: scrollTold, showing: { first: visible.first, last: visible.last } });
  }

  function scrollEnded() {
    top = Math.max(0, list.scrollTop);
    clearTimeout(progressTimer);
    progressTimer = null;
    clearTimeout(beganTimer);
    beganTimer = null;
    store.setScrolling(false);
    reportVisible();
  }

  const scrollEnd = createScrollEnd({
    target: list, position: () => Math.max(0, list.scrollTop), onEnd: scrollEnded,
  });
  // The browser's hint that the list came to rest (after each notch, before the run's stop is known):
  // a presenter's followers are shown the rows at once.
  list.addEventListener('scrollend', () => {
    if (store.state.scrolling && (keysHeld || scrollEnd.byPerson())) showScroll(visibleRange());
  });

  /** A key held down (auto-repeat) moves the list: one scroll, reported when the key is let go. */
  function holdKeys(held) {
    if (held === keysHeld) return;
    keysHeld = held;
    if (held) {
      begin();
      if (progressTimer == null) progressTimer = setTimeout(reportProgress, REPORT_MS);
    } else if (store.state.scrolling) {
      expectedTop = top; // the scroll event of the last move may come after the release
      scrollEnded();
    }
  }

  /** Scrolls by the page's own doing to `to`, and reports the new rows at once (while keys are held,
   * when they are let go). */
  function jumpTo(to) {
    const max = Math.max(0, count() * rowHeight - metrics().height);
    to = Math.max(0, Math.min(max, Math.round(to)));
    if (Math.abs(top - to) < 1) return;
    if (!store.state.scrolling) expectedTop = to;
    list.scrollTop = to;
    top = to;
    if (!store.state.scrolling) reportVisible();
  }

  /** Brings row `index` on screen, moving as little as needed (or to the top with `align`). */
  function reveal(index, align) {
    const rowTop = index * rowHeight;
    const rowBottom = rowTop + rowHeight;
    const h = metrics().height;
    if (align === 'top' || rowTop < top) jumpTo(rowTop);
    else if (rowBottom > top + h) jumpTo(rowBottom - h);
  }

  // A height that changed which rows show (the introduction folding, a resized window) is reported;
  // one that did not, after a stop that already said them, is not said again.
  function reportResized() {
    const visible = visibleRange();
    if (visible && lastStop && visible.first === lastStop.first && visible.last === lastStop.last) return;
    reportVisible();
  }

  // After each layout that changed the list's height (the first one included). The first change
  // after a quiet while is reported at once (the introduction folding at a first visit's first jump
  // uncovers rows that jump's stop could not know of); one of a resize still going on (a window's
  // edge dragged), once it has been still.
  function onResize() {
    const first = !height;
    if (list.clientHeight === height) return;
    height = list.clientHeight;
    top = Math.max(0, list.scrollTop);
    const now = performance.now();
    const quiet = now - lastResize >= STILLNESS_MS;
    lastResize = now;
    clearTimeout(resizeTimer);
    if (first) reportVisible();
    else if (quiet) reportResized();
    else resizeTimer = setTimeout(reportResized, STILLNESS_MS);
  }

  list.addEventListener('scroll', onScroll, { passive: true });
  new ResizeObserver(onResize).observe(list);

  return { visibleRange, nearRange, reportVisible, jumpTo, reveal, metrics, holdKeys };
}
