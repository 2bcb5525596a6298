// What is on screen, told to the server as a stop: the visible rows as soon as a scroll has ended
// (scroll-reports.js tells what a scroll in progress says, scroll-end.js when it has ended; the
// server runs loadImagesForOnscreenRows), and once at start, on resize and after every snapshot. A
// jump the page makes itself (a key, a click on the timeline, the row in the URL) is reported at
// once, without suspending. A script's scroll, even of one move, waits for stillness: a script
// flinging the list in big steps looks like a jump at its first step, and must not start work on
// that step's rows. The URL keeps the first visible row.

import { updateURL } from './config.js';
import { STILLNESS_MS } from './scroll-end.js';
import { createScrollReports } from './scroll-reports.js';

/** Creates the viewport of the scrolling element `list`; with `keepsRowInURL` (the list's) the URL
 * keeps the first visible row. While `showsScroll()` (a presenter's page), a person's scroll shows
 * its followers the rows it passes (scroll-reports.js). */
export function createViewport({ store, list, reporter, rowHeight, keepsRowInURL = true, showsScroll = () => false }) {
  let lastStop = null; // the rows of the last report at rest
  let expectedTop = null; // the scrollTop of a jump the page made itself
  let resizeTimer = null;
  let lastResize = -Infinity; // when the list's height last changed
  // The list's scroll position and height as last seen (from scroll events and the resize
  // observer): reading them when asked would make the browser lay the page out at that moment.
  let top = 0;
  let height = 0; // 0 until the list has been laid out once

  const count = () => store.state.photos.length;

  /** The list's scroll position and height; before its first layout, the window's height. */
  const metrics = () => ({ top, height: height || window.innerHeight, measured: height > 0 });

  /** The rows at least partly on screen, inclusive (with the list scrolled to `at`); null before
   * the list is there. */
  function visibleRange(at = top) {
    const n = count(), h = metrics().height;
    if (!n || h <= 0) return null;
    const first = Math.min(n - 1, Math.floor(at / rowHeight));
    return { first, last: Math.min(n - 1, Math.max(first, Math.floor((at + h - 1) / rowHeight))) };
  }

  /** The rows that may show an image: the visible ones and a margin, half a screen at least (the
   * server reads that far ahead, so a reader's next move shows rows whose thumbnails are already
   * here, decoded). While scrolling only the visible rows start loading (see images.js). */
  function nearRange() {
    const visible = visibleRange();
    if (!visible) return null;
    const margin = Math.max(3, store.effectiveStrategy().prefetch, Math.ceil((visible.last - visible.first + 1) / 2));
    return { first: Math.max(0, visible.first - margin), last: Math.min(count() - 1, visible.last + margin), visible };
  }

  /** Reports the rows on screen as a stop. */
  function reportVisible() {
    if (store.state.scrolling || store.state.source.status !== 'ready' || !height) return;
    const visible = visibleRange();
    if (!visible) return;
    reporter.report({ scrolling: false, first: visible.first, last: visible.last });
    scroll.reported(visible.first);
    lastStop = visible;
    if (keepsRowInURL) updateURL({ row: visible.first > 0 ? visible.first + 1 : null });
  }

  const scroll = createScrollReports({
    store, list, reporter, showsScroll,
    view: { top: () => top, height: () => metrics().height, visibleRange: () => visibleRange(), rowHeight },
    onStop: () => { top = Math.max(0, list.scrollTop); reportVisible(); },
  });

  function onScroll() {
    top = Math.max(0, list.scrollTop);
    if (!count()) return;
    const expected = expectedTop != null && Math.abs(list.scrollTop - expectedTop) < 1;
    expectedTop = null;
    if (!expected) scroll.moved();
  }

  /** A key held down (auto-repeat) moves the list: one scroll, reported when the key is let go. */
  function holdKeys(held) {
    const at = top; // the scroll event of the last move may come after the release
    if (scroll.holdKeys(held)) expectedTop = at;
  }

  /** Scrolls by the page's own doing to `to`, and reports the new rows at once (while keys are held,
   * when they are let go). */
  function jumpTo(to) {
    to = Math.max(0, Math.min(Math.max(0, count() * rowHeight - metrics().height), Math.round(to)));
    if (Math.abs(top - to) < 1) return;
    if (!store.state.scrolling) expectedTop = to;
    list.scrollTop = to;
    top = to;
    if (!store.state.scrolling) reportVisible();
  }

  /** Brings row `index` on screen, moving as little as needed (or to the top with `align`). */
  function reveal(index, align) {
    const rowTop = index * rowHeight, h = metrics().height;
    if (align === 'top' || rowTop < top) jumpTo(rowTop);
    else if (rowTop + rowHeight > top + h) jumpTo(rowTop + rowHeight - h);
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
    const now = performance.now(), quiet = now - lastResize >= STILLNESS_MS;
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
