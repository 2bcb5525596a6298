// The timeline's tracks: one per operation each queue runs at once, as configured or as seen in use
// (rows on screen start downloads beyond the prefetch permits, within the server's transfer bound),
// and above each queue's, one for operations cancelled while still queued. Every track gets an equal
// share of the plot's fixed height; labels name each track while they fit, else each queue's block.

const PLOT = 120; // px: the plot's fixed height (app.css), which the tracks share
const MAX_TRACK_HEIGHT = 14; // px per track at most
const GAP = 6; // px between the two queues
const LABELLED = 11; // px: tracks at least this tall get a label each; thinner ones one per queue
const MOST = 32; // tracks a queue may have

/** Creates the tracks of the timeline `root`, labelled in `labels`. */
export function createTimelineTracks({ root, labels }) {
  let tracks = { download: 0, filtration: 0 };
  let configured = { download: 0, filtration: 0 };
  const seen = { download: 0, filtration: 0 };
  let trackHeight = MAX_TRACK_HEIGHT;

  /** The top (px) of `track` of `queue`; of its queued operations' track with `track` null. */
  const top = (queue, track) => (queue === 'download' ? 0 : (tracks.download + 1) * trackHeight + GAP)
    + (track == null ? 0 : (track + 1) * trackHeight);

  function layout() {
    trackHeight = Math.min(MAX_TRACK_HEIGHT, (PLOT - GAP) / (tracks.download + tracks.filtration + 2));
    root.style.setProperty('--track', trackHeight.toFixed(2) + 'px');
    const rows = [];
    for (const queue of ['download', 'filtration']) {
      const name = queue === 'download' ? 'Download' : 'Sepia';
      if (trackHeight >= LABELLED) {
        rows.push({ queue, track: null, span: 1, text: 'queued', tip: 'tip-track-queued' });
        for (let track = 0; track < tracks[queue]; track += 1) rows.push({ queue, track, span: 1, text: name + ' ' + (track + 1), tip: 'tip-track-' + queue });
      } else {
        rows.push({ queue, track: 0, span: tracks[queue], text: name + ' 1–' + tracks[queue], tip: 'tip-track-' + queue });
      }
    }
    labels.replaceChildren(...rows.map((row) => {
      const el = document.createElement('div');
      el.className = 'tl-track has-tip' + (row.track == null ? ' queued' : '');
      const height = row.span * trackHeight;
      el.style.top = (top(row.queue, row.track) + Math.max(0, (height - 12) / 2)).toFixed(1) + 'px';
      el.textContent = row.text;
      el.setAttribute('aria-describedby', row.tip);
      return el;
    }));
  }

  // The larger of the configured and the most seen in use; true when that changed the tracks.
  function apply() {
    const download = Math.max(configured.download, seen.download);
    const filtration = Math.max(configured.filtration, seen.filtration);
    if (download === tracks.download && filtration === tracks.filtration) return false;
    tracks = { download, filtration };
    layout();
    return true;
  }

  return {
    top,
    /** An operation on `track` of `queue` (null: queued): a track beyond those drawn is added; true
     * when the tracks changed (every bar is placed again). */
    use(queue, track) {
      if (track == null || track < tracks[queue] || track >= MOST) return false;
      seen[queue] = Math.max(seen[queue], track + 1);
      return apply();
    },
    /** The server's concurrency per queue; true when the tracks changed. */
    configure(download, filtration) {
      const bound = (n) => Math.max(1, Math.min(MOST, n | 0));
      configured = { download: bound(download), filtration: bound(filtration) };
      return apply();
    },
    get counts() { return { ...tracks }; },
  };
}
