// The web platform alone: a plain list of lazy <img> with a CSS sepia filter, the same photos over
// the same simulated network. A standalone page of lazy images has a host's six HTTP/1.1
// connections to itself, so this lane fetches from a second name of the server (127.0.0.1 and
// localhost are two hosts to the browser): its images do not queue behind the lab's own requests.

/** The second name of this server the browser lane's images come from, where there is one. */
const OTHER_NAME = { '127.0.0.1': 'localhost', localhost: '127.0.0.1', '[::1]': 'localhost' };

/** Photo `path` (a path of this server) on the browser lane's own host, with run `run` in the URL. */
export function laneImageURL(path, run) {
  const address = new URL(path, location.href);
  const other = OTHER_NAME[address.hostname];
  if (other) address.hostname = other;
  // A run of its own in the URL: "Run again" is cold for the browser's cache too.
  address.searchParams.set('run', run);
  return address.href;
}

/** Runs the browser lane `spec` ({images}) of run `run`: its rows' states go to `store` (the page
 * lists them itself), the images shown in `images` to `model`. Its images are given their addresses
 * at the lab's first report, as the server lanes start then: every lane starts cold together. */
export function browserLane(spec, { images, store, model, run }) {
  store.setSnapshot({ count: images.length, photos: [], states: { new: images.length } });
  images.forEach((img, index) => {
    img.loading = 'lazy';
    img.decoding = 'async';
    img.className = 'browser-sepia';
    const settle = (state) => () => {
      store.updatePhotos([{ index, state }]);
      model.markShown(index);
    };
    img.addEventListener('load', settle('filtered'), { once: true });
    img.addEventListener('error', settle('failed'), { once: true });
  });
  const addresses = spec.images.map((path) => laneImageURL(path, run));
  const urls = new Map(addresses.map((address, index) => [address, index]));
  let started = false;
  return {
    report() {
      if (started) return;
      started = true;
      images.forEach((img, index) => { img.src = addresses[index]; });
    },
    close() { images.forEach((img) => img.removeAttribute('src')); },
    /** This run's images' Resource Timing entries, with their rows. */
    timings() {
      return performance.getEntriesByType('resource')
        .filter((entry) => urls.has(entry.name))
        .map((entry) => ({ index: urls.get(entry.name), entry }));
    },
    /** Resource Timing of this run's images, by row: bytes fetched. */
    fetchedBytes() {
      const rows = new Map();
      for (const { index, entry } of this.timings()) {
        rows.set(index, (rows.get(index) || 0) + (entry.encodedBodySize || entry.transferSize || 0));
      }
      return rows;
    },
  };
}
