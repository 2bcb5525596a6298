// What a row does when used: a sepia row's image opens the photo viewer (so does Enter); a click on
// a row's text makes it the current row and gives the list the keyboard's focus, so mouse and keys
// mix; a failed row's "Try again" asks the server to forget the failure (POST /api/photos/N/retry)
// and work on the photo again; the row says it is tried again, and if it fails again, that it did
// and why (the store counts the tries, rows.js words them).

import { url } from './config.js';

/** Wires clicks on the rows in `rowsEl` of the list `list`; returns `act(index)`, what Enter on a row
 * does. */
export function attachRowActions({ store, list, rowsEl, photoViewer, onRetried }) {
  const busy = new Set(); // photos whose retry is on its way

  async function retry(index) {
    if (busy.has(index)) return;
    busy.add(index);
    // Counted before the request: the photo may be downloading again before its answer comes.
    store.noteTry(index);
    try {
      const response = await fetch(url('/api/photos/' + index + '/retry'), { method: 'POST', cache: 'no-store' });
      if (!response.ok) {
        let reason = String(response.status);
        try { reason = (await response.json()).error || reason; } catch (_) { /* not JSON */ }
        store.noteTry(index, -1);
        store.setNotice('retry', 'Could not try again: ' + reason, 'error');
      } else {
        store.setNotice('retry', null);
      }
      onRetried();
    } catch (error) {
      store.noteTry(index, -1);
      store.setNotice('retry', 'Could not try again: ' + error.message, 'error');
    } finally {
      busy.delete(index);
    }
  }

  function act(index) {
    const photo = store.state.photos[index];
    if (!photo) return;
    if (photo.state === 'filtered') photoViewer.show(index);
    else if (photo.state === 'failed') retry(index);
  }

  rowsEl.addEventListener('click', (event) => {
    const el = event.target.closest('[data-index]');
    if (!el) return;
    const index = Number(el.dataset.index);
    store.setActiveRow(index);
    if (event.target.closest('[data-action="retry"]')) {
      retry(index);
      return;
    }
    const photo = store.state.photos[index];
    if (event.target.closest('.thumb-box')) {
      if (photo && photo.state === 'filtered') photoViewer.show(index);
      return;
    }
    list.focus({ preventScroll: true });
  });

  return act;
}
