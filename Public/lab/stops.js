// The lab's time to visible, for every lane on one clock: the page's. A stop starts when the
// scroll stops; a lane's stop ends in the first frame in which every row on screen shows its final
// image in that lane (the sepia thumbnail loaded, or the failed mark). A stop the lane had not
// finished when the next one came is abandoned; one still open when the trace ends is not done,
// with the bound the trace waited, and counted: none is dropped.

/** A clock over `lanes` (each with `isShown(first, last)` and a `stops` array it fills). */
export function createStopClock(lanes) {
  const open = new Map(); // lane -> its open stop
  let frame = 0;

  function check() {
    frame = 0;
    // Read after the frame's work: the rows' images that loaded are painted in this frame.
    const now = performance.now();
    for (const [lane, stop] of open) {
      if (!lane.isShown(stop.first, stop.last)) continue;
      stop.ms = now - stop.at;
      open.delete(lane);
    }
    if (open.size) schedule();
  }
  function schedule() {
    if (!frame) frame = requestAnimationFrame(check);
  }

  return {
    /** Scrolling stopped with rows first...last on screen: each lane's clock starts. */
    stop({ first, last }) {
      const at = performance.now();
      for (const lane of lanes) {
        const previous = open.get(lane);
        if (previous) previous.abandoned = true;
        const stop = { first, last, at, ms: null, abandoned: false, notDone: false, bound: null };
        lane.stops.push(stop);
        open.set(lane, stop);
      }
      schedule();
    },
    /** A lane's row showed its final image: its stop may be done by the next frame. */
    changed() { if (open.size) schedule(); },
    /** Whether every lane's last stop is done. */
    get settled() { return open.size === 0; },
    /** The trace ended: stops still open are not done, with the bound the trace waited. */
    end(boundMs) {
      for (const stop of open.values()) {
        stop.notDone = true;
        stop.bound = boundMs;
      }
      open.clear();
    },
  };
}
