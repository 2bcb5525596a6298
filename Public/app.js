// ClassicPhotos Live: the page.
//
// One EventSource brings every row's state, this viewer's queues, the server's totals and the
// operations for the timeline. The page tells the server what is on screen (POST /api/viewport):
// `scrolling: true` on the first scroll event, the visible rows ~150 ms after scrolling stops, and
// once at start, on resize and after every snapshot. Reports go one at a time; while one is in
// flight only the latest is kept. Images are only loaded for rows on or near the screen, at most
// three at a time, visible rows first, so the browser's six connections per origin are never all
// taken by images (one is the event stream, one is for viewport reports).
'use strict';

(() => {
  // ---------------------------------------------------------------- configuration

  const body = document.body;
  const config = {
    basePath: (body.dataset.basePath || '').replace(/\/+$/, ''),
    strategy: body.dataset.strategy || 'prefetch',
    prefetch: Math.max(0, parseInt(body.dataset.prefetch, 10) || 0),
    rowHeight: Math.max(1, parseInt(body.dataset.rowHeight, 10) || 80),
    version: body.dataset.version || '',
  };
  const SCROLL_END_MS = 150;
  const MAX_IMAGE_LOADS = 3;
  const TIMELINE_SECONDS = 20;
  const STATES = ['new', 'downloading', 'downloaded', 'filtering', 'filtered', 'failed'];

  const url = (path) => config.basePath + path;
  const staticURL = (file) => url('/static/' + file + (config.version ? '?v=' + encodeURIComponent(config.version) : ''));
  const PLACEHOLDER = staticURL('placeholder.svg');
  const FAILED = staticURL('failed.svg');

  const $ = (id) => document.getElementById(id);
  const list = $('list');
  const rowsEl = $('rows');
  const listMessage = $('list-message');
  const sourceStatus = $('source-status');
  const banner = $('banner');
  const rowTemplate = $('row-template').content.firstElementChild;

  document.documentElement.style.setProperty('--row-height', config.rowHeight + 'px');

  const state = {
    viewer: body.dataset.viewer || '',
    source: { status: 'loading', count: 0, error: null },
    rows: [], // one record per photo, see makeRow
    counts: Object.fromEntries(STATES.map((s) => [s, 0])),
    queues: null,
    stats: null,
    scrolling: false,
    suspendedSeen: 0,
    eventsSeen: { total: 0 },
    lastEventId: null,
  };

  // ---------------------------------------------------------------- small helpers

  function formatBytes(n) {
    n = Number(n) || 0;
    const units = ['B', 'KB', 'MB', 'GB', 'TB'];
    let i = 0;
    while (Math.abs(n) >= 1000 && i < units.length - 1) { n /= 1000; i += 1; }
    const digits = i === 0 ? 0 : (Math.abs(n) < 10 ? 2 : Math.abs(n) < 100 ? 1 : 0);
    return n.toFixed(digits) + ' ' + units[i];
  }

  function formatSeconds(s) {
    s = Number(s) || 0;
    if (s < 1) return Math.round(s * 1000) + ' ms';
    if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + ' s';
    return Math.floor(s / 60) + ' min ' + Math.round(s % 60) + ' s';
  }

  const formatCount = (n) => (Number(n) || 0).toLocaleString('en-US');

  function setText(id, text) {
    const el = typeof id === 'string' ? $(id) : id;
    if (el && el.textContent !== text) el.textContent = text;
  }

  function showBanner(text, kind) {
    banner.textContent = text;
    banner.className = 'banner' + (kind === 'error' ? ' error' : '');
    banner.dataset.kind = kind || 'info';
    banner.hidden = false;
  }

  function hideBanner(kind) {
    if (!kind || banner.dataset.kind === kind) banner.hidden = true;
  }

  // ---------------------------------------------------------------- rows

  function makeRow(photo, index) {
    const el = rowTemplate.cloneNode(true);
    const box = el.children[0];
    const meta = el.children[1];
    const row = {
      index,
      name: String(photo.name ?? 'Photo ' + index),
      state: null,
      progress: null,
      reason: null,
      el,
      img: box.children[0],
      progressEl: box.children[2],
      bar: box.children[2].firstElementChild,
      nameEl: meta.children[0],
      statusEl: meta.children[1],
      reasonEl: meta.children[2],
      retryEl: meta.querySelector('[data-action="retry"]'),
      preview: false,
      shown: null, // the URL the row's <img> shows
    };
    el.dataset.index = String(index);
    row.nameEl.textContent = row.name;
    row.nameEl.title = row.name;
    el.children[2].textContent = '#' + (index + 1);
    setRowState(row, photo);
    return row;
  }

  function statusText(row) {
    switch (row.state) {
      case 'new': return 'Waiting';
      case 'downloading':
        return row.progress == null ? 'Downloading…' : 'Downloading… ' + Math.round(row.progress * 100) + '%';
      case 'downloaded': return 'Downloaded · sepia next';
      case 'filtering': return 'Applying sepia…';
      case 'filtered': return 'Sepia · click to compare';
      case 'failed': return 'Failed to load';
      default: return row.state;
    }
  }

  // The image a row should show in its state.
  function wantedImage(row) {
    switch (row.state) {
      // The unfiltered thumbnail once it exists (never the full-size original): unfiltered first, then sepia.
      case 'filtering': return row.preview ? url('/photos/' + row.index + '/preview') : PLACEHOLDER;
      case 'filtered': return url('/photos/' + row.index + '/thumbnail');
      case 'failed': return FAILED;
      default: return PLACEHOLDER;
    }
  }

  function altText(row) {
    switch (row.state) {
      case 'filtered': return 'Sepia thumbnail of ' + row.name;
      case 'filtering': return row.preview ? row.name + ' (not yet sepia)' : 'Placeholder for ' + row.name;
      case 'failed': return row.name + ' failed to load';
      default: return 'Placeholder for ' + row.name;
    }
  }

  function setRowState(row, photo) {
    const next = STATES.includes(photo.state) ? photo.state : 'new';
    const previous = row.state; // null while the row is being made
    if (previous !== next) {
      if (previous) state.counts[previous] -= 1;
      state.counts[next] += 1;
    }
    row.state = next;
    row.progress = next === 'downloading' && typeof photo.progress === 'number'
      ? Math.min(1, Math.max(0, photo.progress)) : null;
    row.reason = next === 'failed' ? (photo.reason || 'unknown error') : null;
    const hadPreview = row.preview;
    row.preview = next === 'filtering' && (photo.preview === true || (previous === 'filtering' && row.preview === true));

    const el = row.el;
    if (el.dataset.state !== next) el.dataset.state = next;
    setText(row.statusEl, statusText(row));
    setText(row.reasonEl, row.reason || '');
    // The technical detail behind the reason, on hover.
    row.reasonEl.title = next === 'failed' ? (photo.detail || row.reason || '') : '';
    if (next === 'downloading') {
      const known = row.progress != null;
      row.progressEl.classList.toggle('indeterminate', !known);
      row.bar.style.setProperty('--p', known ? String(row.progress) : '0');
    }
    if (next === 'filtered') {
      row.nameEl.href = url('/photos/' + row.index + '/sepia');
    } else if (row.nameEl.hasAttribute('href')) {
      row.nameEl.removeAttribute('href');
    }
    row.retryEl.hidden = next !== 'failed';
    if (previous !== next || hadPreview !== row.preview) row.img.alt = altText(row);
  }

  // Rows go into blocks of BLOCK_ROWS, each a fixed-height box the browser can skip when it is off
  // screen (content-visibility) and lay out on its own (containment): with thousands of rows a
  // change in one row, or scrolling, then costs one block's layout, not the whole list's.
  const BLOCK_ROWS = 25;

  function rebuildRows(photos) {
    images.reset();
    state.counts = Object.fromEntries(STATES.map((s) => [s, 0]));
    const fragment = document.createDocumentFragment();
    const rows = new Array(photos.length);
    let block = null;
    for (let i = 0; i < photos.length; i += 1) {
      if (i % BLOCK_ROWS === 0) {
        block = document.createElement('div');
        block.className = 'block';
        block.setAttribute('role', 'presentation');
        block.style.setProperty('--rows', String(Math.min(BLOCK_ROWS, photos.length - i)));
        fragment.appendChild(block);
      }
      const photo = photos[i] || {};
      const index = Number.isInteger(photo.index) ? photo.index : i;
      rows[i] = makeRow(photo, index);
      rows[i].el.setAttribute('aria-posinset', String(i + 1));
      rows[i].el.setAttribute('aria-setsize', String(photos.length));
      block.appendChild(rows[i].el);
    }
    rowsEl.replaceChildren(fragment);
    rowsEl.dataset.count = String(photos.length);
    state.rows = rows;
  }

  function applySnapshot(photos) {
    pendingPhotos.clear();
    // Rows are addressed by index: keep the list in index order whatever order it came in.
    if (photos.some((p, i) => p && Number.isInteger(p.index) && p.index !== i)) {
      photos = photos.slice().sort((a, b) => (a && a.index) - (b && b.index));
    }
    const rows = state.rows;
    const sameList = rows.length === photos.length
      && photos.every((p, i) => rows[i].name === String(p.name ?? 'Photo ' + i));
    if (sameList) {
      for (let i = 0; i < photos.length; i += 1) setRowState(rows[i], photos[i]);
    } else {
      rebuildRows(photos);
    }
    list.setAttribute('aria-busy', 'false');
    if (photos.length === 0) {
      listMessage.textContent = 'The photo list is empty.';
      listMessage.classList.remove('error');
      listMessage.hidden = false;
    } else {
      listMessage.hidden = true;
    }
    images.refresh();
    updateSummary();
  }

  // Photo events come in bursts (download progress); apply them once per frame.
  const pendingPhotos = new Map();
  let photoFlushScheduled = false;

  function queuePhoto(photo) {
    if (!Number.isInteger(photo.index)) return;
    pendingPhotos.set(photo.index, photo);
    if (!photoFlushScheduled) {
      photoFlushScheduled = true;
      // requestAnimationFrame does not run in hidden tabs; the timeout keeps state current there.
      const timer = setTimeout(flushPhotos, 200);
      requestAnimationFrame(() => { clearTimeout(timer); flushPhotos(); });
    }
  }

  function flushPhotos() {
    if (!photoFlushScheduled) return;
    photoFlushScheduled = false;
    let changedImages = false;
    for (const photo of pendingPhotos.values()) {
      const row = state.rows[photo.index];
      if (!row) continue;
      const before = row.state;
      setRowState(row, photo);
      if (before !== row.state) changedImages = images.update(row) || changedImages;
    }
    pendingPhotos.clear();
    if (changedImages) images.pump();
    updateSummary();
  }

  function updateSummary() {
    const total = state.rows.length;
    setText('summary', formatCount(state.counts.filtered) + ' / ' + formatCount(total) + ' sepia');
    $('summary-chip').hidden = total === 0;
    updateActivity();
  }

  // ---------------------------------------------------------------- viewport

  function visibleRange() {
    const count = state.rows.length;
    const height = list.clientHeight;
    if (!count || height <= 0) return null;
    const top = Math.max(0, list.scrollTop);
    const first = Math.min(count - 1, Math.floor(top / config.rowHeight));
    const last = Math.min(count - 1, Math.max(first, Math.floor((top + height - 1) / config.rowHeight)));
    return { first, last };
  }

  // Rows that may have an image: the visible ones, plus a margin once scrolling has stopped.
  function nearRange() {
    const visible = visibleRange();
    if (!visible) return null;
    const margin = state.scrolling ? 0 : Math.max(3, config.prefetch);
    return {
      first: Math.max(0, visible.first - margin),
      last: Math.min(state.rows.length - 1, visible.last + margin),
      visible,
    };
  }

  const reporter = {
    inFlight: false,
    pending: null,
    retryTimer: null,
    failures: 0,
    sent: 0,
    acknowledged: 0,
    errors: 0,
    last: null, // { payload, status, at }
    lastAcknowledged: null,
  };

  function report(payload) {
    reporter.pending = payload;
    sendReport();
  }

  function reportVisible() {
    if (state.scrolling || state.source.status !== 'ready') return;
    const visible = visibleRange();
    if (!visible) return;
    report({ scrolling: false, first: visible.first, last: visible.last });
  }

  async function sendReport() {
    if (reporter.inFlight || !reporter.pending || !state.viewer || renewing) return;
    const payload = reporter.pending;
    reporter.pending = null;
    reporter.inFlight = true;
    reporter.sent += 1;
    const viewer = state.viewer;
    const body = JSON.stringify(Object.assign({ viewer }, payload));
    let retry = false;
    try {
      const response = await fetch(url('/api/viewport'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
        cache: 'no-store',
        credentials: 'same-origin',
      });
      reporter.last = { payload, status: response.status, at: Date.now() };
      if (response.ok) {
        reporter.acknowledged += 1;
        reporter.lastAcknowledged = payload;
        reporter.failures = 0;
      } else {
        reporter.errors += 1;
        let reason = '';
        try { reason = (await response.json()).error || ''; } catch (_) { /* not JSON */ }
        if (response.status === 404 || response.status === 410) {
          // The server does not know this viewer (it restarted): get a new id (unless that has
          // happened meanwhile), then report again.
          if (!reporter.pending) reporter.pending = payload;
          if (viewer === state.viewer) renewViewer('viewport: ' + (reason || response.status));
        } else if (response.status >= 500) {
          retry = true;
        } else {
          console.warn('viewport report refused:', response.status, reason);
        }
      }
    } catch (error) {
      reporter.errors += 1;
      reporter.last = { payload, status: 0, at: Date.now(), error: String(error) };
      retry = true;
    } finally {
      reporter.inFlight = false;
    }
    if (retry) {
      reporter.failures += 1;
      clearTimeout(reporter.retryTimer);
      const delay = Math.min(10000, 500 * 2 ** Math.min(5, reporter.failures - 1));
      reporter.retryTimer = setTimeout(() => {
        if (!reporter.pending) reporter.pending = payload;
        sendReport();
      }, delay);
      return;
    }
    sendReport();
  }

  let scrollTimer = null;
  let nearFrame = 0;

  function onScroll() {
    if (!state.rows.length) return;
    if (!state.scrolling) {
      state.scrolling = true;
      report({ scrolling: true });
    }
    clearTimeout(scrollTimer);
    scrollTimer = setTimeout(onScrollEnd, SCROLL_END_MS);
    if (!nearFrame) nearFrame = requestAnimationFrame(() => { nearFrame = 0; images.refresh(); });
  }

  function onScrollEnd() {
    scrollTimer = null;
    state.scrolling = false;
    reportVisible();
    images.refresh();
  }

  let resizeTimer = null;
  let lastHeight = -1;
  function onResize() {
    if (list.clientHeight === lastHeight) return;
    lastHeight = list.clientHeight;
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { reportVisible(); images.refresh(); timeline.resize(); }, SCROLL_END_MS);
  }

  // ---------------------------------------------------------------- images

  // Loads row images with at most MAX_IMAGE_LOADS requests at once, visible rows first. An image
  // is fetched by a detached Image; when it has loaded the row's <img> gets the same URL, which the
  // browser answers from its memory cache.
  const images = {
    queue: new Set(), // rows waiting for a load slot
    inFlight: new Map(), // url -> Image
    loaded: new Set(), // urls fetched by this page
    failures: new Map(), // url -> { count, retryAt }
    started: 0,
    maxInFlight: 0,
    near: null,

    isStatic(src) { return src === PLACEHOLDER || src === FAILED; },

    reset() {
      this.queue.clear();
      this.near = null;
    },

    inNear(row) {
      const near = this.near;
      return !!near && row.index >= near.first && row.index <= near.last;
    },

    show(row, src) {
      if (row.shown === src) return;
      row.shown = src;
      row.img.src = src;
    },

    // Brings one row's image up to date; returns true when it queued a load.
    update(row) {
      const want = wantedImage(row);
      if (row.shown === want) { this.queue.delete(row); return false; }
      if (!this.inNear(row)) { this.queue.delete(row); return false; }
      if (this.isStatic(want) || this.loaded.has(want)) {
        this.show(row, want);
        this.queue.delete(row);
        return false;
      }
      this.queue.add(row);
      return true;
    },

    // Recomputes which rows are near the viewport and queues what they need.
    refresh() {
      const near = nearRange();
      this.near = near;
      for (const row of this.queue) if (!this.inNear(row)) this.queue.delete(row);
      if (near) {
        for (let i = near.first; i <= near.last; i += 1) this.update(state.rows[i]);
      }
      this.pump();
    },

    priority(row) {
      const near = this.near;
      if (!near) return Infinity;
      const { first, last } = near.visible;
      if (row.index >= first && row.index <= last) return row.index - first;
      const distance = row.index < first ? first - row.index : row.index - last;
      return 10000 + distance * 2 + (row.index < first ? 1 : 0);
    },

    pump() {
      while (this.inFlight.size < MAX_IMAGE_LOADS && this.queue.size) {
        let best = null;
        let bestPriority = Infinity;
        const now = performance.now();
        for (const row of this.queue) {
          const want = wantedImage(row);
          const failure = this.failures.get(want);
          if (this.inFlight.has(want) || (failure && failure.retryAt > now)) continue;
          const p = this.priority(row);
          if (p < bestPriority) { best = row; bestPriority = p; }
        }
        if (!best) break;
        this.queue.delete(best);
        this.load(wantedImage(best));
      }
    },

    load(src) {
      const image = new Image();
      image.decoding = 'async';
      this.inFlight.set(src, image);
      this.started += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight.size);
      const done = (ok) => {
        image.onload = image.onerror = null;
        this.inFlight.delete(src);
        if (ok) {
          this.loaded.add(src);
          this.failures.delete(src);
        } else {
          const failure = this.failures.get(src) || { count: 0, retryAt: 0 };
          failure.count += 1;
          // Not there yet (or gone): try again a little later, a few times.
          failure.retryAt = failure.count <= 4 ? performance.now() + 600 * failure.count : Infinity;
          this.failures.set(src, failure);
          if (failure.count <= 4) setTimeout(() => this.refresh(), 650 * failure.count);
        }
        this.refresh();
      };
      image.onload = () => done(true);
      image.onerror = () => done(false);
      image.src = src;
    },
  };

  // ---------------------------------------------------------------- panel

  function updateQueues(queues) {
    state.queues = queues;
    const dl = queues.download || {};
    const ft = queues.filtration || {};
    setText('dl-pending', formatCount(dl.pending));
    setText('dl-executing', formatCount(dl.executing));
    setText('ft-pending', formatCount(ft.pending));
    setText('ft-executing', formatCount(ft.executing));
    $('dl-suspended').hidden = !dl.suspended;
    $('ft-suspended').hidden = !ft.suspended;
    $('dl-queue').classList.toggle('is-suspended', !!dl.suspended);
    $('ft-queue').classList.toggle('is-suspended', !!ft.suspended);
    if (dl.suspended || ft.suspended) state.suspendedSeen += 1;
    setText('panel-summary',
      '↓ ' + (dl.executing || 0) + ' running · ' + (dl.pending || 0) + ' waiting' +
      '   ◐ ' + (ft.executing || 0) + ' · ' + (ft.pending || 0) +
      (dl.suspended || ft.suspended ? '   (suspended)' : ''));
    updateActivity();
  }

  function updateActivity() {
    let busy;
    if (state.queues) {
      busy = ((state.queues.download || {}).executing || 0) + ((state.queues.filtration || {}).executing || 0) > 0;
    } else {
      busy = state.counts.downloading + state.counts.filtering > 0;
    }
    $('activity').hidden = !busy;
  }

  function updateStats(stats) {
    state.stats = stats;
    for (const [prefix, key] of [['dl', 'downloads'], ['ft', 'filtrations']]) {
      const q = stats[key] || {};
      for (const field of ['started', 'finished', 'cancelled', 'failed', 'executing', 'pending']) {
        setText('stat-' + prefix + '-' + field, formatCount(q[field]));
      }
    }
    setText('stat-bytes', formatBytes(stats.bytesDownloaded));
    setText('stat-aborted', formatCount(stats.transfersAborted));
    setText('stat-cache-hits', formatCount(stats.cacheHits));
    setText('stat-cache-misses', formatCount(stats.cacheMisses));
    setText('stat-cache-bytes', formatBytes(stats.cacheBytes));
    setText('stat-filter-cpu', formatSeconds(stats.filterSeconds));
    setText('stat-wasted-bytes', formatBytes(stats.wastedBytes));
    setText('stat-wasted-downloads', formatCount(stats.wastedDownloads));
    setText('stat-wasted-cpu', formatSeconds(stats.wastedFilterSeconds));
    setText('stat-viewers', formatCount(stats.viewers));
    setText('stat-viewers-unit', Number(stats.viewers) === 1 ? 'viewer' : 'viewers');
    const lanesDL = Number(stats.maxConcurrentDownloads) || timeline.lanes.download;
    const lanesFT = Number(stats.maxConcurrentFiltrations) || timeline.lanes.filtration;
    setText('stat-concurrency', lanesDL + (lanesDL === 1 ? ' download · ' : ' downloads · ')
      + lanesFT + (lanesFT === 1 ? ' filter' : ' filters'));
    timeline.setLanes(lanesDL, lanesFT);
  }

  // ---------------------------------------------------------------- timeline

  const timeline = {
    canvas: $('timeline'),
    lanes: { download: 4, filtration: 2 },
    bars: [], // { queue, slot, index, start, end, outcome }
    open: new Map(), // "queue:slot" -> bar
    offset: null, // server time minus client time, in seconds
    frame: 0,
    lastDraw: 0,
    width: 0,
    height: 0,

    clientNow() { return performance.now() / 1000; },
    serverNow() { return this.offset == null ? 0 : this.clientNow() + this.offset; },

    setLanes(download, filtration) {
      download = Math.max(1, Math.min(32, download | 0));
      filtration = Math.max(1, Math.min(32, filtration | 0));
      if (download === this.lanes.download && filtration === this.lanes.filtration) return;
      this.lanes = { download, filtration };
      this.resize();
    },

    add(op) {
      const time = Number(op.time);
      if (!Number.isFinite(time)) return;
      const candidate = time - this.clientNow();
      if (this.offset == null || candidate > this.offset) {
        this.offset = candidate;
      } else if (candidate < this.offset - 30) {
        // Time went backwards by a lot: the server restarted. Start afresh.
        this.bars = [];
        this.open.clear();
        this.offset = candidate;
      }
      const queue = op.queue === 'filtration' ? 'filtration' : 'download';
      const slot = Number.isInteger(op.slot) ? op.slot : null;
      if (slot == null) return; // cancelled while waiting: never occupied a lane
      const key = queue + ':' + slot;
      if (op.outcome === 'started') {
        const previous = this.open.get(key);
        if (previous) { previous.end = time; previous.outcome = previous.outcome || 'cancelled'; }
        const bar = { queue, slot, index: op.index, start: time, end: null, outcome: null };
        this.open.set(key, bar);
        this.bars.push(bar);
        if (this.bars.length > 3000) this.bars.splice(0, this.bars.length - 3000);
      } else {
        let bar = this.open.get(key);
        if (bar && bar.index === op.index) {
          this.open.delete(key);
        } else {
          // The start happened before this page connected: show what is known.
          bar = { queue, slot, index: op.index, start: time - 0.05, end: null, outcome: null };
          this.bars.push(bar);
        }
        bar.end = time;
        bar.outcome = op.outcome;
      }
      this.schedule();
    },

    // Ends the bars still running: their ends may have been missed (a snapshot replaced the
    // events, or the server restarted).
    closeOpen(reset) {
      const now = this.serverNow();
      for (const bar of this.open.values()) {
        bar.end = Math.max(bar.start, now);
        bar.outcome = 'unknown';
      }
      this.open.clear();
      if (reset) { this.bars = []; this.offset = null; }
      this.schedule(true);
    },

    resize() {
      const canvas = this.canvas;
      const laneCount = this.lanes.download + this.lanes.filtration;
      const cssHeight = 8 + laneCount * 16 + 10 + 18;
      canvas.style.height = cssHeight + 'px';
      this.schedule(true);
    },

    schedule(force) {
      if (force) this.lastDraw = 0;
      if (!this.frame) this.frame = requestAnimationFrame((t) => this.tick(t));
    },

    tick(t) {
      this.frame = 0;
      const details = $('panel-details');
      if (document.hidden || (details && !details.open)) return;
      if (t - this.lastDraw >= 66) { // about 15 frames a second is plenty
        this.lastDraw = t;
        this.draw();
      }
      const now = this.serverNow();
      for (const [key, bar] of this.open) {
        if (now - bar.start > 120) { this.open.delete(key); bar.end = now; bar.outcome = 'unknown'; }
      }
      const active = this.open.size > 0 || this.bars.some((b) => b.end != null && b.end > now - TIMELINE_SECONDS - 1);
      if (active) this.schedule();
    },

    draw() {
      const canvas = this.canvas;
      const dpr = window.devicePixelRatio || 1;
      const cssWidth = canvas.clientWidth;
      const cssHeight = canvas.clientHeight;
      if (!cssWidth || !cssHeight) return;
      if (canvas.width !== Math.round(cssWidth * dpr) || canvas.height !== Math.round(cssHeight * dpr)) {
        canvas.width = Math.round(cssWidth * dpr);
        canvas.height = Math.round(cssHeight * dpr);
      }
      const ctx = canvas.getContext('2d');
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, cssWidth, cssHeight);
      ctx.fillStyle = '#2b2119';
      ctx.fillRect(0, 0, cssWidth, cssHeight);

      const labelWidth = 34;
      const plotLeft = labelWidth;
      const plotWidth = Math.max(10, cssWidth - labelWidth - 8);
      const laneHeight = 16;
      const top = 8;
      const groupGap = 10;
      const now = this.serverNow();
      const start = now - TIMELINE_SECONDS;
      const x = (t) => plotLeft + ((t - start) / TIMELINE_SECONDS) * plotWidth;
      const laneY = (queue, slot) => top + (queue === 'download' ? slot : this.lanes.download + slot) * laneHeight
        + (queue === 'download' ? 0 : groupGap);
      const plotBottom = laneY('filtration', this.lanes.filtration - 1) + laneHeight;

      ctx.font = '10px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      // Lanes and their labels.
      for (const queue of ['download', 'filtration']) {
        for (let slot = 0; slot < this.lanes[queue]; slot += 1) {
          const y = laneY(queue, slot);
          ctx.fillStyle = slot % 2 ? 'rgba(255,240,220,.035)' : 'rgba(255,240,220,.07)';
          ctx.fillRect(plotLeft, y, plotWidth, laneHeight);
          ctx.fillStyle = '#c9b398';
          ctx.fillText((queue === 'download' ? '↓' : '◐') + slot, 6, y + laneHeight / 2);
        }
      }
      // Grid: a line every five seconds.
      ctx.strokeStyle = 'rgba(255,240,220,.12)';
      ctx.fillStyle = '#a89379';
      ctx.textAlign = 'center';
      ctx.lineWidth = 1;
      for (let s = 0; s <= TIMELINE_SECONDS; s += 5) {
        const gx = Math.round(plotLeft + plotWidth - (s / TIMELINE_SECONDS) * plotWidth) + 0.5;
        ctx.beginPath();
        ctx.moveTo(gx, top);
        ctx.lineTo(gx, plotBottom);
        ctx.stroke();
        ctx.fillText(s === 0 ? 'now' : '−' + s + ' s', Math.min(Math.max(gx, plotLeft + 12), plotLeft + plotWidth - 10), plotBottom + 10);
      }
      ctx.textAlign = 'left';

      const colors = { finished: '#5fa85a', failed: '#d0503b', cancelled: '#e0963a', running: '#4d86d6', unknown: '#8a7b6c' };
      const keep = [];
      for (const bar of this.bars) {
        const end = bar.end == null ? now : bar.end;
        if (end < start - 1) continue; // scrolled out of the window: drop it
        keep.push(bar);
        if (bar.slot >= this.lanes[bar.queue]) continue;
        const x0 = Math.max(plotLeft, x(bar.start));
        const x1 = Math.min(plotLeft + plotWidth, x(end));
        if (x1 < plotLeft) continue;
        const width = Math.max(2, x1 - x0);
        const y = laneY(bar.queue, bar.slot) + 2;
        ctx.fillStyle = colors[bar.end == null ? 'running' : bar.outcome] || colors.cancelled;
        ctx.fillRect(x0, y, width, laneHeight - 4);
        if (width > 22) {
          ctx.fillStyle = 'rgba(255,255,255,.9)';
          ctx.save();
          ctx.beginPath();
          ctx.rect(x0, y, width, laneHeight - 4);
          ctx.clip();
          ctx.fillText(String(bar.index), x0 + 3, y + (laneHeight - 4) / 2 + 0.5);
          ctx.restore();
        }
      }
      this.bars = keep;
    },
  };

  // ---------------------------------------------------------------- source status

  function applySource(source) {
    state.source = {
      status: source.status || 'loading',
      count: Number(source.count) || 0,
      error: source.error || null,
    };
    sourceStatus.dataset.status = state.source.status;
    if (state.source.status === 'ready') {
      setText(sourceStatus, 'Ready · ' + formatCount(state.source.count) + ' photos');
      hideBanner('source');
      // With --photos-dir: say which files of the folder are not in the list, and why.
      const skipped = Array.isArray(source.skipped) ? source.skipped : [];
      state.source.skipped = skipped;
      if (skipped.length) {
        showBanner('Not listed from the photo folder: '
          + skipped.map((s) => s.file + ' (' + s.reason + ')').join('; '), 'info');
        banner.dataset.kind = 'skipped';
      }
    } else if (state.source.status === 'failed') {
      const reason = state.source.error || 'unknown error';
      setText(sourceStatus, 'Photo list failed: ' + reason);
      listMessage.textContent = 'The photo list could not be loaded: ' + reason;
      listMessage.classList.add('error');
      listMessage.hidden = state.rows.length > 0;
      list.setAttribute('aria-busy', 'false');
      showBanner('The photo list could not be loaded: ' + reason, 'error');
      banner.dataset.kind = 'source';
    } else {
      setText(sourceStatus, 'Loading photo list…');
      if (!state.rows.length) {
        listMessage.textContent = 'Loading photo list…';
        listMessage.classList.remove('error');
        listMessage.hidden = false;
      }
    }
  }

  // ---------------------------------------------------------------- event stream

  let source = null;
  let renewing = null;
  let renewAttempts = 0;
  const connection = $('connection');

  function setConnection(status, text) {
    connection.dataset.state = status;
    setText('connection-text', text || status);
  }

  function parse(event) {
    state.eventsSeen[event.type] = (state.eventsSeen[event.type] || 0) + 1;
    state.eventsSeen.total += 1;
    if (event.lastEventId) state.lastEventId = event.lastEventId;
    try {
      return JSON.parse(event.data);
    } catch (error) {
      console.warn('unreadable', event.type, 'event:', event.data);
      return null;
    }
  }

  const handlers = {
    source(data) { applySource(data); },
    snapshot(data) {
      if (!Array.isArray(data.photos)) return;
      if (state.source.status !== 'ready') applySource({ status: 'ready', count: data.photos.length });
      applySnapshot(data.photos);
      timeline.closeOpen(false);
      reportVisible();
    },
    photo(data) { queuePhoto(data); },
    queues(data) { updateQueues(data); },
    stats(data) { updateStats(data); },
    operation(data) { timeline.add(data); },
    shutdown(data) {
      showBanner('The server is going away (' + (data.reason || 'shutting down') + '). Reconnecting…', 'info');
      banner.dataset.kind = 'shutdown';
      setConnection('connecting', 'reconnecting');
    },
  };

  function connect() {
    if (source) source.close();
    const es = new EventSource(url('/events?viewer=' + encodeURIComponent(state.viewer)));
    source = es;
    setConnection('connecting', 'connecting');
    es.onopen = () => {
      if (es !== source) return;
      loadStats();
      renewAttempts = 0;
      setConnection('open', 'live');
      hideBanner('shutdown');
      hideBanner('connection');
    };
    es.onerror = () => {
      if (es !== source) return;
      if (es.readyState === EventSource.CLOSED) {
        // The server refused the stream (404 for an unknown viewer after a restart, or an error):
        // the browser will not retry, so ask for a new viewer id and connect again.
        setConnection('closed', 'disconnected');
        renewViewer('event stream closed');
      } else {
        setConnection('connecting', 'reconnecting');
      }
    };
    for (const [type, handler] of Object.entries(handlers)) {
      es.addEventListener(type, (event) => {
        if (es !== source) return;
        const data = parse(event);
        if (data && typeof data === 'object') {
          try {
            handler(data);
          } catch (error) {
            console.error('handling', type, 'failed:', error);
          }
        }
      });
    }
  }

  // The totals once, so the panel is filled before the first stats event (sent only on change).
  async function loadStats() {
    const seenBefore = state.eventsSeen.stats || 0;
    try {
      const response = await fetch(url('/api/stats'), { cache: 'no-store' });
      if (!response.ok) return;
      const stats = await response.json();
      if ((state.eventsSeen.stats || 0) === seenBefore && stats && typeof stats === 'object') updateStats(stats);
    } catch (_) { /* the event stream will bring them */ }
  }

  // Gets a new viewer id from the server (POST /api/viewers) and reconnects with it.
  function renewViewer(why) {
    if (renewing) return renewing;
    renewing = (async () => {
      for (;;) {
        const delay = renewAttempts === 0 ? 200 : Math.min(15000, 1000 * 2 ** Math.min(4, renewAttempts - 1));
        renewAttempts += 1;
        if (renewAttempts > 2) {
          showBanner('Lost the connection to the server (' + why + '). Retrying…', 'error');
          banner.dataset.kind = 'connection';
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
        try {
          const response = await fetch(url('/api/viewers'), { method: 'POST', cache: 'no-store' });
          if (!response.ok) throw new Error('HTTP ' + response.status);
          const data = await response.json();
          if (!data || !data.viewer) throw new Error('no viewer id');
          state.viewer = String(data.viewer);
          timeline.closeOpen(true);
          setText('viewer-id', state.viewer);
          $('viewer-id').parentElement.title = 'This page’s viewer id: ' + state.viewer;
          body.dataset.viewer = state.viewer;
          break;
        } catch (error) {
          console.warn('new viewer id failed:', error);
        }
      }
      renewing = null;
      connect();
      sendReport();
    })();
    return renewing;
  }

  // ---------------------------------------------------------------- wiring

  list.addEventListener('scroll', onScroll, { passive: true });
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(onResize).observe(list);
  } else {
    window.addEventListener('resize', onResize);
  }

  // "Try again" on a failed row: the server forgets the failure and works on the photo again.
  rowsEl.addEventListener('click', async (event) => {
    const button = event.target.closest('[data-action="retry"]');
    if (!button) return;
    const el = button.closest('.row');
    button.disabled = true;
    try {
      const response = await fetch(url('/api/photos/' + el.dataset.index + '/retry'), { method: 'POST', cache: 'no-store' });
      if (!response.ok) showBanner('Could not try again: ' + ((await response.json()).error || response.status), 'error');
      reportVisible();
    } catch (error) {
      showBanner('Could not try again: ' + error.message, 'error');
    } finally {
      button.disabled = false;
    }
  });

  // The photo viewer: the original and the full-size sepia image, with a before/after slider.
  const viewer = (() => {
    const dialog = $('viewer');
    const part = (role) => dialog.querySelector('[data-role="' + role + '"]');
    const slider = part('slider');
    let returnFocus = null;

    function describe(img, el) {
      const entry = performance.getEntriesByName(img.currentSrc || img.src).pop();
      const bytes = entry && entry.encodedBodySize ? formatBytes(entry.encodedBodySize) : 'cached';
      const time = entry ? formatSeconds(entry.duration / 1000) : '';
      setText(el, bytes + (time ? ' in ' + time : ''));
    }

    function load(img, src, factsEl) {
      setText(factsEl, 'loading…');
      img.onload = () => {
        describe(img, factsEl);
        if (img === part('original')) setText(part('size'), img.naturalWidth + ' × ' + img.naturalHeight + ' px');
      };
      img.onerror = () => setText(factsEl, 'could not be loaded');
      img.src = src;
    }

    function show(index, from) {
      const row = state.rows[index];
      if (!row || row.state !== 'filtered') return;
      returnFocus = from || null;
      setText($('viewer-title'), row.name);
      part('original').alt = row.name + ', as downloaded';
      part('sepia').alt = row.name + ', in sepia';
      load(part('original'), url('/photos/' + index + '/original'), part('original-facts'));
      load(part('sepia'), url('/photos/' + index + '/sepia'), part('sepia-facts'));
      slider.value = '50';
      part('sepia-clip').style.setProperty('--split', '50%');
      dialog.dataset.index = String(index);
      dialog.showModal();
    }

    slider.addEventListener('input', () => part('sepia-clip').style.setProperty('--split', slider.value + '%'));
    dialog.querySelector('[data-action="close-viewer"]').addEventListener('click', () => dialog.close());
    // Escape closes a modal dialog by itself; either way focus goes back where it came from.
    dialog.addEventListener('close', () => {
      part('original').removeAttribute('src');
      part('sepia').removeAttribute('src');
      if (returnFocus && returnFocus.isConnected) returnFocus.focus({ preventScroll: true });
      else list.focus({ preventScroll: true });
    });
    return { show, get open() { return dialog.open; } };
  })();

  // A click on a sepia row (or Enter on its name) opens the photo viewer.
  rowsEl.addEventListener('click', (event) => {
    const el = event.target.closest('.row');
    if (!el || el.dataset.state !== 'filtered' || event.target.closest('[data-action="retry"]')) return;
    event.preventDefault();
    viewer.show(Number(el.dataset.index), el.querySelector('a.name'));
  });

  const details = $('panel-details');
  if (window.matchMedia && window.matchMedia('(max-width: 600px)').matches) details.open = false;
  details.addEventListener('toggle', () => timeline.schedule(true));
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) { timeline.schedule(true); flushPhotos(); }
  });

  $('strategy-name').textContent = config.strategy + (config.strategy === 'prefetch' ? ' ±' + config.prefetch : '');
  timeline.resize();

  window.classicPhotos = {
    get viewer() { return state.viewer; },
    visibleRange,
    eventsSeen: state.eventsSeen,
    get scrolling() { return state.scrolling; },
    get suspended() {
      const q = state.queues;
      return !!(q && ((q.download || {}).suspended || (q.filtration || {}).suspended));
    },
    get suspendedSeen() { return state.suspendedSeen; },
    get queues() { return state.queues; },
    get stats() { return state.stats; },
    get source() { return Object.assign({}, state.source); },
    get count() { return state.rows.length; },
    get counts() { return Object.assign({}, state.counts); },
    get connection() {
      return source ? ['connecting', 'open', 'closed'][source.readyState] : 'none';
    },
    get lastEventId() { return state.lastEventId; },
    reports: reporter,
    images: {
      get inFlight() { return images.inFlight.size; },
      get queued() { return images.queue.size; },
      get started() { return images.started; },
      get maxInFlight() { return images.maxInFlight; },
      limit: MAX_IMAGE_LOADS,
    },
    rowState(index) { const row = state.rows[index]; return row ? row.state : null; },
    photoViewer: viewer,
  };

  connect();
})();
