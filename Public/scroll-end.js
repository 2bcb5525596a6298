// When a scroll has ended, for the input that made it. A person's scroll is one scroll until it
// stops, and `scrollend` is only a hint: Chromium fires it after every wheel notch (a notch scrolls at
// once, then nothing until the next). So, per input (gaps measured by Benchmarks/person_input.py):
// - wheel notches: the run ends once no notch has come for WHEEL_STILL_MS (a run of notches 100 ms
//   apart shows gaps up to about 180 ms through a loaded machine; a slow reader's are 400-600 ms);
// - a trackpad (small, precise deltas every frame, then its momentum): twice the largest
//   gap its events have shown so far, within TRACKPAD_QUICKEST_MS...TRACKPAD_STILL_MS (one a frame from
//   the hardware; 30 ms apart at p50 and 50-60 at most through CDP, up to about 100 ms on a loaded machine, where the
//   wait grows with them);
// - a finger: never while it touches; its fling ends at `scrollend` (the momentum's end), or after
//   TOUCH_STILL_MS of stillness;
// - the scrollbar's thumb: never while the button is held on it; the release ends it at once;
// - a press in the scrollbar's track (or on an arrow): the jump or page it makes at the press ends
//   though the button is still down (a person's click lasts about 100 ms, and what it jumped to is on
//   screen from the press): a jump of a screen or more (a shift-press) in its own scroll event, a page (animated over
//   a few frames) once it has been still TRACK_STILL_MS; what the press does after (Chromium's repeat
//   while it is held) is held until the release; where the press will land (a shift-press's jump, a
//   plain press's page) is told at the press (`onPressJump`), before its first scroll event;
// - keys the browser scrolls for: at `scrollend` (the page's own keys are jumps, viewport.js);
// - a script's scroll has no end of its own (Chromium fires `scrollend` after every programmatic
//   step): it ends after STILLNESS_MS of stillness, as in a browser without `scrollend`.

/** Quiet time after the last scroll event that ends a scroll when nothing said so earlier. */
export const STILLNESS_MS = 150;
/** Time without a notch that ends a run of wheel notches. */
export const WHEEL_STILL_MS = 220;
/** The longest time without a trackpad's wheel event that ends its scroll (it sends one a frame,
 * momentum too): the wait before its second event, and its bound. */
export const TRACKPAD_STILL_MS = 180;
/** The shortest: a trackpad whose events came a frame apart has stopped after this. */
export const TRACKPAD_QUICKEST_MS = 100;
/** A trackpad's scroll ends after this many times the largest gap between its events so far (CDP
 * delivers a synthesized trackpad 30 ms apart at p50, 50-60 at most on a loaded machine). */
export const TRACKPAD_GAPS = 2;

/** The stillness that ends a trackpad's scroll whose events have come at most `gap` ms apart. */
export const trackpadStill = (gap) => (gap > 0
  ? Math.min(TRACKPAD_STILL_MS, Math.max(TRACKPAD_QUICKEST_MS, TRACKPAD_GAPS * gap)) : TRACKPAD_STILL_MS);
/** Stillness that ends the jump or page of a press in the scrollbar's track, the button still down
 * (a page's animation moves every frame; Chromium repeats a held press's page after about 150 ms). */
export const TRACK_STILL_MS = 50;
/** Quiet time that ends a finger's scroll when the browser did not say its end. */
const TOUCH_STILL_MS = 500;
/** Input this long before a scroll began still made it (a wheel event comes a frame before its scroll). */
const INPUT_LEAD_MS = 500;

/** A wheel event from a trackpad or a smooth-scrolling mouse: pixel deltas smaller than a notch, or
 * fractions of a pixel (a notch is a whole number of pixels or lines). */
const isPrecise = (event) => event.deltaMode === 0
  && ((Math.abs(event.deltaY) < 50 && Math.abs(event.deltaX) < 50) || !Number.isInteger(event.deltaY));

/** A press that makes Chromium jump its scrollbar's thumb to centre on the pointer: with Shift, or
 * the middle button on Linux (`ScrollbarController`'s absolute jump). */
const centresThumb = (event) => (event.button === 0 && event.shiftKey)
  || (event.button === 1 && /Linux|CrOS/.test(navigator.userAgent) && !/Android/.test(navigator.userAgent));

/** The vertical scrollbar of `target` as Chromium draws it, from the element's top: its arrow
 * buttons' length, the track between them, the thumb's length and where it stands, and the scroll
 * range. Chromium's Fluent scrollbar (15 px thick, Windows and Linux) has 18-px buttons and a thumb
 * at least 17 px long; the classic one, square buttons and a thumb at least as long as it is thick. */
function scrollbarOf(target) {
  const thickness = target.offsetWidth - target.clientWidth;
  const fluent = thickness === 15;
  const button = fluent ? 18 : thickness;
  const track = target.offsetHeight - 2 * button;
  const shown = Math.round(track * target.clientHeight / target.scrollHeight);
  const thumb = Math.max(fluent ? 17 : thickness, shown);
  const range = Math.max(1, target.scrollHeight - target.clientHeight);
  const thumbTop = button + Math.trunc(target.scrollTop / range * (track - thumb));
  return { button, track, thumb, thumbTop, range };
}

/** Where the scroll position lands after a press at `y` (from the element's top) that centres the
 * thumb on the pointer, as Chromium computes it: the thumb moved by whole pixels, each worth the
 * scroll range over the track the thumb travels. Measured against Chromium 156's own jumps at three
 * window sizes: within a pixel. */
function jumpTarget(target, y) {
  const bar = scrollbarOf(target);
  if (bar.track <= bar.thumb) return target.scrollTop;
  const moved = y - bar.thumb / 2 - bar.thumbTop;
  const distance = Math.round(Math.abs(moved)) * bar.range / (bar.track - bar.thumb);
  return Math.max(0, Math.min(bar.range, target.scrollTop + Math.sign(moved) * distance));
}

/** Chromium's page: a plain press in the track moves the list by 7/8 of its height towards the press. */
const PAGE_FRACTION = 0.875;

/** Where the scroll position lands after a plain press at `y` (from the element's top) in the track,
 * a page towards it (animated over about 100 ms); null on an arrow button (a line: no rows change). */
function pageTarget(target, y) {
  const bar = scrollbarOf(target);
  if (y < bar.button || y > bar.button + bar.track) return null;
  const page = target.clientHeight * PAGE_FRACTION * (y < bar.thumbTop ? -1 : 1);
  return Math.max(0, Math.min(bar.range, target.scrollTop + page));
}

/** Watches the scrolls of `target`; `onEnd()` is called once when one has ended. `position()` reads
 * the scroll position now (for the stillness check on a slow frame). `onPressJump(top)` is told at
 * a press in the scrollbar's track where its jump (a shift-press) or page (a plain one) will land,
 * before its first scroll event. */
export function createScrollEnd({ target, position, onEnd, onPressJump = () => {} }) {
  let active = false;
  let timer = null;
  let top = 0;
  let began = 0;
  let lastScroll = 0;
  let lastScrollEnd = -Infinity; // the browser's `scrollend` after the last scroll event
  let lastInput = -Infinity;
  let wheel = { at: -Infinity, still: 0, count: 0, gap: 0 }; // the current run of wheel events
  let touching = 0;
  let lastTouch = -Infinity;
  let onScrollbar = false;
  // A press in the scrollbar's track, not on its thumb: 'pressed', then 'moving' once the list moves,
  // 'done' once that move has ended (the rest of the press is held until the release).
  let trackPress = null;
  let pressTop = 0; // the scroll position at the press
  let trackJumped = false; // the press's first move was a jump of a screen or more

  const byPerson = () => lastInput >= began - INPUT_LEAD_MS;

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
    if (!active || touching) return;
    const now = performance.now();
    if (onScrollbar) {
      if (trackPress !== 'moving') return;
      const left = lastScroll + (trackJumped ? 0 : TRACK_STILL_MS) - now;
      if (left > 0) return recheck(left);
      trackPress = 'done';
      return end();
    }
    if (byPerson()) {
      const wheelLeft = wheel.at + wheel.still - now;
      if (wheelLeft > 0) return recheck(wheelLeft);
      if (lastScrollEnd >= lastScroll) return end();
    }
    // No end said: the position has stood still for STILLNESS_MS (on a slow frame the next scroll
    // event may still be due, so the position itself is looked at). A finger's fling says its end
    // (`scrollend`); on a loaded machine its coasting may start late, so it is given longer.
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

  const input = () => { lastInput = performance.now(); };
  target.addEventListener('wheel', (event) => {
    const now = performance.now();
    const precise = isPrecise(event);
    // A run goes on while each event comes within the stillness the run's events so far allow.
    const goesOn = now - wheel.at < (precise ? wheel.still : WHEEL_STILL_MS);
    const gap = precise && goesOn ? Math.max(wheel.gap, now - wheel.at) : 0;
    const still = precise ? trackpadStill(gap) : WHEEL_STILL_MS;
    wheel = { at: now, still, count: goesOn ? wheel.count + 1 : 1, gap };
    lastInput = now;
  }, { passive: true });
  target.addEventListener('keydown', input, { passive: true });
  target.addEventListener('touchstart', (event) => {
    input();
    lastTouch = lastInput;
    touching = event.touches.length;
  }, { passive: true });
  target.addEventListener('touchmove', input, { passive: true });
  for (const type of ['touchend', 'touchcancel']) {
    target.addEventListener(type, (event) => { input(); touching = event.touches.length; if (active) check(); });
  }
  /** Whether a press at `y` (client coordinates) on the scrollbar falls on its thumb, with a few
   * pixels' margin, since a press there is a drag. */
  function onThumb(y, rect) {
    const bar = scrollbarOf(target);
    const top = rect.top + bar.thumbTop;
    return y >= top - 4 && y <= top + bar.thumb + 4;
  }

  // A press on the scrollbar (beside the content box) holds the scroll until it is released,
  // wherever the pointer is then, but for the jump or page a press in the track makes at once.
  target.addEventListener('pointerdown', (event) => {
    input();
    if (event.pointerType !== 'mouse' || event.target !== target) return;
    const rect = target.getBoundingClientRect();
    if (event.clientX < rect.left + target.clientLeft + target.clientWidth) return;
    onScrollbar = true;
    trackPress = onThumb(event.clientY, rect) ? null : 'pressed';
    pressTop = target.scrollTop;
    if (trackPress && !active) {
      const y = event.clientY - rect.top;
      const to = centresThumb(event) ? jumpTarget(target, y) : event.button === 0 ? pageTarget(target, y) : null;
      if (to != null) onPressJump(to);
    }
  }, { passive: true });
  for (const type of ['pointerup', 'pointercancel']) {
    window.addEventListener(type, () => {
      if (!onScrollbar) return;
      // The thumb stops where it is let go; a press in the track's page, let go before its end (a
      // quick click), goes on to it (`scrollend`).
      const paging = trackPress === 'pressed' || trackPress === 'moving';
      onScrollbar = false;
      trackPress = null;
      input();
      if (!paging) lastScrollEnd = performance.now();
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
      if (onScrollbar && trackPress === 'pressed') {
        trackPress = 'moving';
        trackJumped = Math.abs(now - pressTop) >= target.clientHeight;
        // A jump has landed: it ends now, in this scroll event. A timer, even of 0 ms, would run only
        // after the frame the jump brings is drawn (15-17 ms here).
        if (trackJumped) {
          trackPress = 'done';
          return end();
        }
      }
      if (onScrollbar && trackPress === 'moving') recheck(TRACK_STILL_MS);
      else if (timer == null) recheck(STILLNESS_MS);
    },
    /** Whether the scroll going on was made by a person's input (not by a script). */
    byPerson,
    /** Whether the scroll is one lone wheel notch so far (a reader's notch: its stop comes soon and
     * is reported alone; a second notch makes it a run, which is told). */
    loneNotch: () => byPerson() && wheel.count === 1 && wheel.still === WHEEL_STILL_MS
      && wheel.at >= began - INPUT_LEAD_MS && !touching && !onScrollbar,
    /** Whether the person is still holding the scroll (a finger down, the scrollbar held; not the
     * jump of a press in the track, which ends while the button is down). */
    held: () => touching > 0 || (onScrollbar && trackPress !== 'moving'),
  };
}
