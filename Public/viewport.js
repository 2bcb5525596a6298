// The viewport reporter: tells the server what is on screen. `scrolling: true` on the first scroll
// event of a gesture (the server suspends this viewer's queued work), the visible rows ~150 ms
// after scrolling stops (the server runs loadImagesForOnscreenRows), and once at start, on resize
// and after every snapshot. A jump made by the page itself (a key, a click on the timeline, the
// row in the URL) is reported at once, without suspending. The URL keeps the first visible row.

import { updateURL } from './config.js';

const SCROLL_END_MS = 150;

/** Creates the viewport of the scrolling element `list`. */
export function createViewport({ store, list, reporter, rowHeight }) {
  let scrollTimer = null;
  let expectedTop = null; // the scrollTop of a jump the page made itself
  let resizeTimer = null;
  let lastHeight = -1;

  const count = () => store.state.photos.length;

  /** The rows at least partly on screen, inclusive; null before the list is there. */
  function visibleRange() {
    const n = count();
    const height = list.clientHeight;
    if (!n || height <= 0) return null;
    const top = Math.max(0, list.scrollTop);
    const first = Math.min(n - 1, Math.floor(top / rowHeight));
    const last = Math.min(n - 1, Math.max(first, Math.floor((top + height - 1) / rowHeight)));
    return { first, last };
  }

  /** The rows that may show an image: the visible ones, plus a margin once scrolling has stopped. */
  function nearRange() {
    const visible = visibleRange();
    if (!visible) return null;
    const margin = store.state.scrolling ? 0 : Math.max(3, store.effectiveStrategy().prefetch);
    return {
      first: Math.max(0, visible.first - margin),
      last: Math.min(count() - 1, visible.last + margin),
      visible,
    };
  }

  function reportVisible() {
    if (store.state.scrolling || store.state.source.status !== 'ready') return;
    const visible = visibleRange();
    if (!visible) return;
    reporter.report({ scrolling: false, first: visible.first, last: visible.last });
    updateURL({ row: visible.first > 0 ? visible.first + 1 : null });
  }

  function onScroll() {
    if (!count()) return;
    if (expectedTop != null && Math.abs(list.scrollTop - expectedTop) < 1) {
      expectedTop = null;
      return;
    }
    expectedTop = null;
    if (!store.state.scrolling) {
      store.setScrolling(true);
      reporter.report({ scrolling: true });
    }
    clearTimeout(scrollTimer);
    scrollTimer = setTimeout(() => {
      scrollTimer = null;
      store.setScrolling(false);
      reportVisible();
    }, SCROLL_END_MS);
  }

  /** Scrolls by the page's own doing to `top`, and reports the new rows at once. */
  function jumpTo(top) {
    const max = Math.max(0, count() * rowHeight - list.clientHeight);
    top = Math.max(0, Math.min(max, Math.round(top)));
    if (Math.abs(list.scrollTop - top) < 1) return;
    if (!store.state.scrolling) expectedTop = top;
    list.scrollTop = top;
    if (!store.state.scrolling) reportVisible();
  }

  /** Brings row `index` on screen, moving as little as needed (or to the top with `align`). */
  function reveal(index, align) {
    const top = index * rowHeight;
    const bottom = top + rowHeight;
    if (align === 'top') jumpTo(top);
    else if (top < list.scrollTop) jumpTo(top);
    else if (bottom > list.scrollTop + list.clientHeight) jumpTo(bottom - list.clientHeight);
  }

  function onResize() {
    if (list.clientHeight === lastHeight) return;
    lastHeight = list.clientHeight;
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(reportVisible, SCROLL_END_MS);
  }

  list.addEventListener('scroll', onScroll, { passive: true });
  new ResizeObserver(onResize).observe(list);

  return { visibleRange, nearRange, reportVisible, jumpTo, reveal };
}
