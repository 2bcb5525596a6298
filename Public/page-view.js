// A read-only view of the page for the browser tests and for the curious (`window.classicPhotos`),
// with the times of the page's stops, queue news and resumptions (the tests' and benchmarks' clocks).

/** Exposes the page's parts as `window.classicPhotos`. */
export function exposePage({ store, viewport, stream, panel, reporter, listView, timelineModel, timeline, images, photoViewer, presenting }) {
  const timings = { scrollStops: [], badgeAtStop: [], queues: [], resumed: [] };
  const note = (list, value = true) => { if (value) list.push(performance.now()); if (list.length > 50) list.shift(); };
  store.subscribe((kind) => {
    if (kind === 'scrolling' && !store.state.scrolling) {
      note(timings.scrollStops);
      // Whether the suspended badge still showed then (the panel heard of the stop first).
      timings.badgeAtStop.push(document.getElementById('dl-queue').classList.contains('is-suspended'));
      if (timings.badgeAtStop.length > 50) timings.badgeAtStop.shift();
    }
    if (kind === 'queues') {
      note(timings.queues);
      note(timings.resumed, !((store.state.queues.download || {}).suspended || (store.state.queues.filtration || {}).suspended));
    }
  });

  window.classicPhotos = Object.freeze({
    get viewer() { return store.state.viewer; },
    visibleRange: () => viewport.visibleRange(),
    eventsSeen: stream.seen,
    get scrolling() { return store.state.scrolling; },
    get suspended() {
      const q = store.state.queues;
      return !!(q && ((q.download || {}).suspended || (q.filtration || {}).suspended));
    },
    get suspendedSeen() { return panel.suspendedSeen; },
    get queues() { return store.state.queues; },
    get stats() { return store.state.stats; },
    get source() { return Object.assign({}, store.state.source); },
    get count() { return store.state.photos.length; },
    get counts() { return Object.assign({}, store.state.counts); },
    get connection() { return stream.readyState; },
    get lastEventId() { return stream.lastEventId; },
    get openedEarly() { return stream.adoptedEarly; },
    get sharedStream() { return stream.shared; },
    get hidden() { return reporter.hidden; },
    get activeRow() { return store.state.activeRow; },
    get strategy() { return { requested: store.state.requested, applied: store.state.applied }; },
    get renderedRows() { return listView.renderedCount; },
    get timeline() {
      const items = timelineModel.items;
      return {
        items: items.length,
        paused: timeline.paused,
        cancelledRunning: items.filter((i) => i.kind === 'bar' && i.outcome === 'cancelled').length,
        cancelledQueued: items.filter((i) => i.kind === 'mark').length,
        tracks: timeline.tracks,
        tracksUsed: {
          download: Math.max(0, ...items.filter((i) => i.kind === 'bar' && i.queue === 'download').map((i) => i.track + 1)),
          filtration: Math.max(0, ...items.filter((i) => i.kind === 'bar' && i.queue === 'filtration').map((i) => i.track + 1)),
        },
      };
    },
    timings,
    reports: reporter,
    images: images.stats,
    rowState: (index) => (store.state.photos[index] ? store.state.photos[index].state : null),
    photoViewer,
    get presentation() { return presenting.state; },
  });
}
