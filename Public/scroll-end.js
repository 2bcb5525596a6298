// When a scroll has ended, as soon as the page can know it. A flick must not start work on every
// row it passes, so a scroll's end is what the page reports; waiting for 150 ms of stillness to find
// it cost every jump 150 ms (BENCHMARKS.md 9). Where the browser knows the end it says so:
// `scrollend` (Chromium, Firefox) ends a scroll the reader made (wheel, touch, scrollbar, keys the
// browser scrolls for) at once. A script's scroll has no such end: Chromium fires `scrollend` after
// every programmatic step, and a script moving the list one step a frame is one scroll, not sixty; it
// ends by stillness, unless it is a jump (viewport.js reports those at once). The stillness wait
// stays for a browser without `scrollend`, too.

/** Quiet time after the last scroll event that ends a scroll when nothing said so earlier. */
export const STILLNESS_MS = 150;
/** Input this long before a scroll began still made it (a wheel event comes a frame before its scroll). */
const INPUT_LEAD_MS = 500;

/** Watches the scroll events of one scroll on `target`; `onEnd()` is called once when it has ended.
 * `position()` reads the scroll position now (for the stillness check on a slow frame). */
export function createScrollEnd({ target, position, onEnd }) {
  let active = false;
  let stillTimer = null;
  let top = 0;
  let began = 0;
  let lastInput = -Infinity;

  function end() {
    if (!active) return;
    active = false;
    clearTimeout(stillTimer);
    stillTimer = null;
    onEnd();
  }

  // The position has stood still for STILLNESS_MS; on a slow frame the next scroll event may still
  // be due, so the position itself is looked at.
  function stillnessCheck() {
    const now = position();
    if (Math.abs(now - top) >= 1) {
      top = now;
      stillTimer = setTimeout(stillnessCheck, STILLNESS_MS);
      return;
    }
    end();
  }

  const input = () => { lastInput = performance.now(); };
  for (const type of ['wheel', 'touchstart', 'touchmove', 'pointerdown', 'keydown']) {
    target.addEventListener(type, input, { passive: true });
  }
  target.addEventListener('scrollend', () => {
    if (active && lastInput >= began - INPUT_LEAD_MS) end();
  });

  return {
    /** A scroll event of a scroll in progress (the first one starts it). */
    moved(now) {
      if (!active) began = performance.now();
      active = true;
      top = now;
      clearTimeout(stillTimer);
      stillTimer = setTimeout(stillnessCheck, STILLNESS_MS);
    },
  };
}
