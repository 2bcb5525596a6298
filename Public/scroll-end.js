// When a scroll has ended, from the events every browser gives (wheel, touch, keys, a press on the
// scrollbar and its release, `scrollend`, stillness): no browser's scrollbar is modelled, no browser
// is named. `scrollend` alone is only a hint: a browser may fire it after every wheel notch. Per input
// (gaps measured by Benchmarks/person_input.py):
// - wheel notches: the run ends once no notch has come for WHEEL_STILL_MS (a run 100 ms apart shows
//   gaps up to about 180 ms on a loaded machine; a slow reader's are 400-600 ms);
// - a trackpad (small, precise deltas every frame, then momentum): twice the largest gap its events
//   have shown, within TRACKPAD_QUICKEST_MS...TRACKPAD_STILL_MS;
// - a finger: never while it touches; its fling ends at `scrollend`, or after TOUCH_STILL_MS still;
// - a press on the scrollbar (its thumb, its track, an arrow): held until the release, except a move
//   of a screen or more in its first scroll event (a jump: the rows it shows are known then); after
//   the release, at once if the list stands still, else (a page's animation, a drag let go moving)
//   at `scrollend` or stillness;
// - keys the browser scrolls for: at `scrollend` (the page's own keys are jumps, viewport.js);
// - a script's scroll (no end of its own): after STILLNESS_MS of stillness.

/** Quiet time after the last scroll event that ends a scroll when nothing said so earlier. */
export const STILLNESS_MS = 150;
/** Time without a notch that ends a run of wheel notches. */
export const WHEEL_STILL_MS = 220;
/** The longest and the shortest stillness that end a trackpad's scroll (it sends an event a frame). */
export const TRACKPAD_STILL_MS = 180;
export const TRACKPAD_QUICKEST_MS = 100;
/** A trackpad's scroll ends after this many times the largest gap between its events so far. */
export const TRACKPAD_GAPS = 2;
export const trackpadStill = (gap) => (gap > 0
  ? Math.min(TRACKPAD_STILL_MS, Math.max(TRACKPAD_QUICKEST_MS, TRACKPAD_GAPS * gap)) : TRACKPAD_STILL_MS);
/** A list that has not moved for this long before a scrollbar's release stands still (a frame or three). */
const RELEASE_STILL_MS = 50;
/** Quiet time that ends a finger's scroll when the browser did not say its end. */
const TOUCH_STILL_MS = 500;
/** Input this long before a scroll began still made it (a wheel event comes a frame before its scroll). */
const INPUT_LEAD_MS = 500;

/** A trackpad's or smooth mouse's wheel event: deltas smaller than a notch, or fractions of a pixel. */
const isPrecise = (event) => event.deltaMode === 0
  && ((Math.abs(event.deltaY) < 50 && Math.abs(event.deltaX) < 50) || !Number.isInteger(event.deltaY));

/** Watches the scrolls of `target`; `onEnd()` is called once when one has ended. `position()` reads
 * the scroll position now (for the stillness check on a slow frame). */
export function createScrollEnd({ target, position, onEnd }) {
  let active = false, timer = null, top = 0, began = 0, lastScroll = 0;
  let lastScrollEnd = -Infinity; // the browser's `scrollend` after the last scroll event
  let lastInput = -Infinity, lastTouch = -Infinity, touching = 0;
  let wheel = { at: -Infinity, still: 0, count: 0, gap: 0 }; // the current run of wheel events
  let press = null; // the button held on the scrollbar: { top, moved } (the position at the press)

  const byPerson = () => lastInput >= began - INPUT_LEAD_MS;
  const input = () => { lastInput = performance.now(); };

  function end() {
    if (!active) return;
    active = false;
    clearTimeout(timer);
    timer = null;
    onEnd();
  }

  function recheck(ms) {
    clearTimeout(timer);
    timer = setTimeout(check, Math.max(0, ms));
  }

  // Ends the scroll if its input has stopped; else looks again when it may have.
  function check() {
    timer = null;
    if (!active || touching || press) return;
    const now = performance.now();
    if (byPerson()) {
      const wheelLeft = wheel.at + wheel.still - now;
      if (wheelLeft > 0) return recheck(wheelLeft);
      if (lastScrollEnd >= lastScroll) return end();
    }
    // No end said: the position has stood still (on a slow frame the next scroll event may still be
    // due, so the position itself is looked at). A fling's coasting may start late: given longer.
    const still = lastTouch >= began - INPUT_LEAD_MS ? TOUCH_STILL_MS : STILLNESS_MS;
    const quiet = lastScroll + still - now;
    if (quiet > 0) return recheck(quiet);
    const at = position();
    if (Math.abs(at - top) >= 1) {
      top = at;
      lastScroll = now;
      return recheck(still);
    }
    end();
  }

  target.addEventListener('wheel', (event) => {
    const now = performance.now(), precise = isPrecise(event);
    // A run goes on while each event comes within the stillness the run's events so far allow.
    const goesOn = now - wheel.at < (precise ? wheel.still : WHEEL_STILL_MS);
    const gap = precise && goesOn ? Math.max(wheel.gap, now - wheel.at) : 0;
    wheel = { at: now, still: precise ? trackpadStill(gap) : WHEEL_STILL_MS, count: goesOn ? wheel.count + 1 : 1, gap };
    lastInput = now;
  }, { passive: true });
  target.addEventListener('keydown', input, { passive: true });
  target.addEventListener('touchstart', (event) => { input(); lastTouch = lastInput; touching = event.touches.length; }, { passive: true });
  target.addEventListener('touchmove', input, { passive: true });
  for (const type of ['touchend', 'touchcancel']) {
    target.addEventListener(type, (event) => { input(); touching = event.touches.length; if (active) check(); });
  }
  // A mouse press beside the content box is on the scrollbar.
  target.addEventListener('pointerdown', (event) => {
    input();
    const rect = target.getBoundingClientRect();
    if (event.pointerType !== 'mouse' || event.target !== target
        || event.clientX < rect.left + target.clientLeft + target.clientWidth) return;
    press = { top: target.scrollTop, moved: false };
  }, { passive: true });
  for (const type of ['pointerup', 'pointercancel']) {
    window.addEventListener(type, () => {
      if (!press) return;
      press = null;
      input();
      if (performance.now() - lastScroll >= RELEASE_STILL_MS) lastScrollEnd = performance.now();
      if (active) check();
    }, { capture: true, passive: true });
  }
  target.addEventListener('scrollend', () => {
    lastScrollEnd = performance.now();
    if (active && byPerson()) check();
  });

  return {
    /** A scroll event of a scroll in progress (the first one starts it). */
    moved(now) {
      const at = performance.now();
      if (!active) began = at;
      active = true;
      top = now;
      lastScroll = at;
      // A press's first move of a screen or more is a jump: it ends now, in this scroll event.
      if (press && !press.moved) {
        press.moved = true;
        if (Math.abs(now - press.top) >= target.clientHeight) return end();
      }
      if (timer == null && !press) recheck(STILLNESS_MS);
    },
    /** Whether the scroll going on was made by a person's input (not by a script). */
    byPerson,
    /** Whether the button is held on the scrollbar. */
    pressing: () => !!press,
    /** Whether the scroll is one lone wheel notch so far (a reader's step: not told as a scroll). */
    loneNotch: () => byPerson() && wheel.count === 1 && wheel.still === WHEEL_STILL_MS
      && wheel.at >= began - INPUT_LEAD_MS && !touching && !press,
  };
}
