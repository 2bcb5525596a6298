// For the browser tests and the curious: each lane's stops on the page's clock, its reports, the
// browser lane's Resource Timing, and the page's part in a presentation (lab-presenting.js).

/** Exposes `window.classicPhotosLab` over the page's running lab (`lab()`). */
export function exposeLab({ lab, playing, presenting }) {
  window.classicPhotosLab = Object.freeze({
    get id() { const current = lab(); return current ? current.id : null; },
    get playing() { return playing(); },
    get presentation() { return presenting.state; },
    /** The rows at the top of the lanes' scroller. */
    get firstRow() { const current = lab(); return current ? Math.round(current.scroller.scrollTop / current.rowHeight) : null; },
    get lanes() {
      const current = lab();
      return current ? current.lanes.map((lane) => ({
        strategy: lane.spec.strategy,
        viewer: lane.spec.viewer || null,
        states: lane.store.state.photos.map((photo) => (photo ? photo.state : null)),
        stops: lane.model.state.stops.map(({ first, last, at, ms, abandoned, notDone, bound }) => ({ first, last, at, ms, abandoned, notDone, bound })),
        shared: lane.events ? lane.events.shared : null,
        reports: lane.reporter ? { sent: lane.reporter.sent, acknowledged: lane.reporter.acknowledged, errors: lane.reporter.errors } : null,
      })) : [];
    },
    browserTimings() {
      const current = lab();
      const lane = current && current.lanes.find((candidate) => candidate.timings);
      return lane ? lane.timings().map(({ index, entry }) => ({
        index, name: entry.name, startTime: entry.startTime, requestStart: entry.requestStart,
        responseEnd: entry.responseEnd, protocol: entry.nextHopProtocol,
      })) : [];
    },
  });
}
