// The lab's time to visible, for every lane on one clock: the page's. A stop starts when the
// scroll stops; a lane's stop ends in the first frame in which every row on screen shows its final
// image in that lane (the sepia thumbnail loaded, or the failed mark). A stop the lane had not
// finished when the next one came is abandoned; one still open when the trace ends is not done,
// with the bound the trace waited, and counted: none is dropped. The stops are kept in each lane's
// store (lane-store.js).

/** A clock over the lane stores `models`. */
export function createStopClock(models) {
  const open = new Map(); // lane store -> its open stop
  let frame = 0;

  function check() {
    frame = 0;
    // Read after the frame's work: the rows' images that loaded are painted in this frame.
    const now = performance.now();
    for (const [model, stop] of open) {
      if (!model.isShown(stop.first, stop.last)) continue;
      open.delete(model);
      model.updateStop(stop, { ms: now - stop.at });
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
      for (const model of models) {
        const previous = open.get(model);
        if (previous) model.updateStop(previous, { abandoned: true });
        open.set(model, model.addStop({ first, last, at }));
      }
      schedule();
    },
    /** A lane's row showed its final image: its stop may be done by the next frame. */
    changed() { if (open.size) schedule(); },
    /** Whether every lane's last stop is done. */
    get settled() { return open.size === 0; },
    /** The trace ended: stops still open are not done, with the bound the trace waited. */
    end(boundMs) {
      for (const [model, stop] of open) model.updateStop(stop, { notDone: true, bound: boundMs });
      open.clear();
    },
  };
}
