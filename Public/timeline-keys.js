// The timeline's keyboard: its bars are one Tab stop (a roving tabindex: the newest bar shown, or the
// one last focused), and arrow keys, Home and End move between the operations in view, newest last.

import { WINDOW_SECONDS } from './timeline-model.js';

/** Keys for the bars of the timeline `root` (`elements`: item id -> bar); `viewEnd()` the server
 * time the view ends at. */
export function createTimelineKeys({ root, model, elements, viewEnd }) {
  let stop = null; // the bar that takes the timeline's Tab stop

  /** Makes `el` (or nothing) the timeline's one Tab stop. */
  function rove(el) {
    if (stop === el) return;
    if (stop) stop.tabIndex = -1;
    stop = el;
    if (el) el.tabIndex = 0;
  }
  const shown = (item) => root.dataset.filter !== 'mine' || item.own;

  function newestShown() {
    for (let i = model.items.length - 1; i >= 0; i -= 1) {
      const el = elements.get(model.items[i].id);
      if (el && shown(model.items[i])) return el;
    }
    return null;
  }

  function inView() {
    const end = viewEnd();
    return model.items
      .filter((item) => (item.end == null || item.end >= end - WINDOW_SECONDS) && item.start <= end && shown(item))
      .map((item) => elements.get(item.id)).filter(Boolean);
  }
  root.addEventListener('keydown', (event) => {
    const keys = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
    if (!(event.key in keys)) return;
    const list = inView();
    if (!list.length) return;
    event.preventDefault();
    const at = list.indexOf(document.activeElement);
    const step = keys[event.key];
    const next = Number.isFinite(step) ? (at < 0 ? list.length - 1 : Math.max(0, Math.min(list.length - 1, at + step)))
      : (step < 0 ? 0 : list.length - 1);
    list[next].focus();
  });
  root.addEventListener('focusin', (event) => { if (event.target.classList.contains('op')) rove(event.target); });

  return {
    /** A new bar: the Tab stop, unless focus is inside the timeline. */
    added(item, el) { if (shown(item) && !root.contains(document.activeElement)) rove(el); },
    /** A bar removed: the newest shown takes the Tab stop if it had it. */
    removed(el) { if (el === stop) rove(newestShown()); },
    /** The filter changed: the newest shown takes the Tab stop. */
    filtered() { rove(newestShown()); },
  };
}
