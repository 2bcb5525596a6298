// When a scroll has ended, from the events every browser gives: no browser's scrollbar modelled, no
// browser named. `scrollend` is only a hint (it may come after every wheel notch). Per input (gaps
// measured by Benchmarks/person_input.py): wheel notches, once none was made (event.timeStamp) for
// WHEEL_STILL_MS plus the longest a notch of the run took to reach the page (a busy machine's backlog)
// and a frame, a notch made within that after the end resuming the scroll; a trackpad, by its gaps; a
// finger, never while it touches, then `scrollend` or stillness; a press on the scrollbar: its own move
// (begun within PRESS_MOVE_MS: a track's jump or page) in its first scroll event if a screen or more,
// else at `scrollend` or stillness; a drag of the thumb at its release; keys, `scrollend`; a script's
// scroll, STILLNESS_MS of stillness (a trackpad's: twice its largest gap, within QUICKEST...STILL).
export const STILLNESS_MS = 150, WHEEL_STILL_MS = 220;
export const TRACKPAD_STILL_MS = 180, TRACKPAD_QUICKEST_MS = 100, TRACKPAD_GAPS = 2;
const TOUCH_STILL_MS = 500, PRESS_MOVE_MS = 150;
const INPUT_LEAD_MS = 500; // input this long before a scroll still made it (a wheel event comes a frame before)
export const trackpadStill = (gap) => (gap > 0
  ? Math.min(TRACKPAD_STILL_MS, Math.max(TRACKPAD_QUICKEST_MS, TRACKPAD_GAPS * gap)) : TRACKPAD_STILL_MS);

// A trackpad's or smooth mouse's wheel event: deltas smaller than a notch, or fractions of a pixel.
const isPrecise = (event) => event.deltaMode === 0
  && ((Math.abs(event.deltaY) < 50 && Math.abs(event.deltaX) < 50) || !Number.isInteger(event.deltaY));

/** Watches the scrolls of `target`; `onEnd()` is called once when one has ended. `position()` reads
 * the scroll position now (for the stillness check on a slow frame). */
export function createScrollEnd({ target, position, onEnd }) {
  let active = false, timer = null, top = 0, began = 0, lastScroll = 0;
  let lastScrollEnd = -Infinity, lastInput = -Infinity, lastTouch = -Infinity, touching = 0;
  let wheel = { at: -Infinity, still: 0, count: 0, gap: 0, late: 0, lag: 0, down: 0 }; // the current run of wheel events
  let press = null; // the button held on the scrollbar: { top, at, own } (own: its first move was the press's)
  let ownMove = false; // this scroll is a press's own move (a track's page), released or not
  let flushed = -Infinity, resumed = false; // the notch a frame was awaited after; a run resumed after its end

  const byPerson = () => lastInput >= began - INPUT_LEAD_MS, input = () => { lastInput = performance.now(); };
  function end() {
    if (!active) return;
    active = ownMove = resumed = false;
    clearTimeout(timer);
    timer = null;
    onEnd();
  }
  const recheck = (ms) => { clearTimeout(timer); timer = setTimeout(check, Math.max(0, ms)); };

  // Ends the scroll if its input has stopped; else looks again when it may have.
  function check() {
    timer = null;
    if (!active || touching || (press && !press.own)) return;
    const now = performance.now(), wheelLeft = wheel.at + wheel.still + wheel.late - now;
    if (byPerson() && wheelLeft > 0) return recheck(wheelLeft);
    if (byPerson() && wheel.at >= began - INPUT_LEAD_MS && flushed !== wheel.at) { // input comes before a frame
      flushed = wheel.at;
      return requestAnimationFrame(() => { if (timer == null) check(); });
    }
    if (byPerson() && lastScrollEnd >= lastScroll) return end();
    // No end said: the position has stood still (on a slow frame the next scroll event may still be
    // due, so the position itself is looked at). A fling's coasting may start late: given longer.
    const still = lastTouch >= began - INPUT_LEAD_MS ? TOUCH_STILL_MS : STILLNESS_MS;
    if (lastScroll + still > now) return recheck(lastScroll + still - now);
    const at = position();
    if (Math.abs(at - top) < 1) return end();
    [top, lastScroll] = [at, now];
    recheck(still);
  }

  target.addEventListener('wheel', (event) => {
    const now = performance.now(), at = Math.min(now, event.timeStamp), precise = isPrecise(event);
    // A run goes on while each event was made within the stillness the run's events so far allow.
    const goesOn = at - wheel.at < (precise ? wheel.still : WHEEL_STILL_MS);
    const gap = precise && goesOn ? Math.max(wheel.gap, at - wheel.at) : 0;
    // How late the run's notches reach the page, and how much later each than the one before (a backlog).
    const lag = now - at, late = goesOn ? Math.max(wheel.late, lag + Math.max(0, lag - wheel.lag)) : lag;
    const down = Math.sign(event.deltaY);
    if (!active) resumed = goesOn && down === wheel.down; // the same way: the run taken for ended goes on
    wheel = { at, still: precise ? trackpadStill(gap) : WHEEL_STILL_MS, count: goesOn ? wheel.count + 1 : 1, gap, late, lag, down };
    lastInput = now;
  }, { passive: true });
  target.addEventListener('keydown', input, { passive: true });
  for (const type of ['touchstart', 'touchmove', 'touchend', 'touchcancel']) {
    target.addEventListener(type, (event) => {
      input();
      touching = event.touches.length;
      if (type === 'touchstart') lastTouch = lastInput;
      else if (type !== 'touchmove' && active) check();
    }, { passive: true });
  }
  target.addEventListener('pointerdown', (event) => { // beside the content box: on the scrollbar
    input();
    const rect = target.getBoundingClientRect();
    if (event.pointerType !== 'mouse' || event.target !== target
        || event.clientX < rect.left + target.clientLeft + target.clientWidth) return;
    press = { top: target.scrollTop, at: event.timeStamp, own: null };
  }, { passive: true });
  for (const type of ['pointerup', 'pointercancel']) {
    window.addEventListener(type, () => {
      if (!press) return;
      input();
      if (!press.own) lastScrollEnd = lastInput;
      press = null;
      if (active) check();
    }, { capture: true, passive: true });
  }
  target.addEventListener('scrollend', () => { lastScrollEnd = performance.now(); if (active && byPerson()) check(); });

  return {
    moved(now) { // a scroll event (the first one starts a scroll)
      const at = performance.now();
      if (!active) began = at;
      [active, top, lastScroll] = [true, now, at];
      // The press's own first move of a screen or more is a jump: it ends now, in this scroll event.
      if (press && press.own == null) {
        press.own = ownMove = at - press.at < PRESS_MOVE_MS;
        if (press.own && Math.abs(now - press.top) >= target.clientHeight) return end();
      }
      if (timer == null && !(press && !press.own)) recheck(STILLNESS_MS);
    },
    byPerson, // the scroll going on was made by a person's input (not by a script)
    pressing: () => !!press || ownMove, // the button is held on the scrollbar, or its page goes on
    resumed: () => resumed && byPerson(), // a run of notches goes on that was taken for ended
    // The scroll is one lone wheel notch so far (a reader's step: not told as a scroll).
    loneNotch: () => byPerson() && wheel.count === 1 && wheel.still === WHEEL_STILL_MS
      && wheel.at >= began - INPUT_LEAD_MS && !touching && !press,
  };
}
