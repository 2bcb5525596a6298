// The header and the banner under it: whether the photo list is loaded, whether live updates are
// connected, how many rows are sepia, whether anything is being worked on, and any notice.

import { formatCount, loadingText, plural, setText } from './format.js';

const CONNECTION_TEXT = { connecting: 'connecting', open: 'live', reconnecting: 'reconnecting', closed: 'disconnected' };

/** Wires the header's status elements (found by id in `root`) to the store. */
export function attachStatus({ store, root }) {
  const $ = (id) => root.getElementById(id);
  const sourceStatus = $('source-status');
  const connection = $('connection');
  const banner = $('banner');

  function showSource() {
    const source = store.state.source;
    sourceStatus.dataset.status = source.status;
    if (source.status === 'ready') {
      setText(sourceStatus, 'Ready · ' + plural(source.count, 'photo'));
      store.setNotice('source', null);
      // With --photos-dir: which files of the folder are not in the list, and why.
      if (source.skipped.length) {
        store.setNotice('skipped', 'Not listed from the photo folder: '
          + source.skipped.map((s) => s.file + ' (' + s.reason + ')').join('; '));
      }
    } else if (source.status === 'failed') {
      const reason = source.error || 'unknown error';
      setText(sourceStatus, 'Photo list failed: ' + reason);
      store.setNotice('source', 'The photo list could not be loaded: ' + reason, 'error');
    } else {
      setText(sourceStatus, loadingText());
    }
  }

  function showNotice() {
    const notice = store.state.notice;
    banner.hidden = !notice;
    if (!notice) return;
    banner.textContent = notice.text;
    banner.className = 'banner' + (notice.level === 'error' ? ' error' : '');
    banner.dataset.kind = notice.kind;
  }

  function showSummary() {
    const { photos, counts } = store.state;
    setText($('summary'), formatCount(counts.filtered) + ' / ' + formatCount(photos.length) + ' sepia');
    $('summary-chip').hidden = photos.length === 0;
    showActivity();
  }

  function showActivity() {
    const { queues, counts } = store.state;
    const busy = queues
      ? ((queues.download || {}).executing || 0) + ((queues.filtration || {}).executing || 0) > 0
      : counts.downloading + counts.filtering > 0;
    $('activity').hidden = !busy;
  }

  function showConnection() {
    const state = store.state.connection;
    connection.dataset.state = state === 'reconnecting' ? 'connecting' : state;
    setText($('connection-text'), CONNECTION_TEXT[state] || state);
  }

  // With several instances: this one lost PostgreSQL (the stats say so), so other instances' work
  // stops reaching this page until it is back.
  function showDatabase() {
    const lost = (store.state.stats || {}).database === 'lost';
    const shown = (store.state.notice || {}).kind === 'database';
    if (lost === shown) return;
    store.setNotice('database', lost
      ? 'This server lost its database: it shows what it has, and the other servers\' work reaches it again once it is back.'
      : null, 'error');
  }

  store.subscribe((kind) => {
    switch (kind) {
      case 'stats': showDatabase(); break;
      case 'source': showSource(); break;
      case 'notice': showNotice(); break;
      case 'list': case 'photos': showSummary(); break;
      case 'queues': showActivity(); break;
      case 'connection': showConnection(); break;
      default: break;
    }
  });
  showConnection();
}
