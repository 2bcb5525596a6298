// The list view, virtualised: the list is as tall as all its rows (fixed height, so row = floor(
// scrollTop / rowHeight)), but only the rows near the viewport are in the DOM, each placed at its
// offset. Row elements are reused as the list scrolls. The keyboard's current row is always kept.

import { loadingText } from './format.js';

const OVERSCAN = 6; // rows rendered beyond each edge of the screen

/** Creates the view over the scrolling element `list` and its row container `rowsEl`. */
export function createListView({ store, list, rowsEl, messageEl, rows, images, viewport, rowHeight }) {
  const rendered = new Map(); // index -> row element
  const pool = [];
  let frame = 0;
  // The first screen came with the page, rendered by the server: its rows are adopted as they
  // are, and nothing is redrawn until the list is known.
  for (const el of rowsEl.querySelectorAll('.row[data-index]')) rendered.set(Number(el.dataset.index), el);
  let listed = false;

  function windowRange() {
    const n = store.state.photos.length;
    const { top, height } = viewport.metrics();
    const first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
    const last = Math.min(n - 1, Math.floor((top + Math.max(height, rowHeight)) / rowHeight) + OVERSCAN);
    return { first, last };
  }

  function renderRow(index, el) {
    const state = store.state;
    const photo = state.photos[index];
    rows.render(el, photo, {
      src: images.srcFor(photo),
      top: index * rowHeight,
      count: state.photos.length,
      active: index === state.activeRow,
      offline: state.connection !== 'open',
    });
  }

  /** Puts `el` among the rendered rows in index order (the order screen readers read them in). */
  function insert(index, el) {
    let next = null;
    for (const [i, other] of rendered) if (i > index && (!next || i < next.index)) next = { index: i, el: other };
    rowsEl.insertBefore(el, next ? next.el : null);
    rendered.set(index, el);
  }

  /** Brings the DOM in line with the scroll position: rows that left the window go back to the
   * pool, rows that entered it are filled. */
  function render() {
    frame = 0;
    if (!listed) return;
    const n = store.state.photos.length;
    const { first, last } = n ? windowRange() : { first: 0, last: -1 };
    const active = store.state.activeRow;
    const keep = (i) => i < n && ((i >= first && i <= last) || i === active);
    for (const [index, el] of rendered) {
      if (keep(index)) continue;
      rendered.delete(index);
      el.remove();
      pool.push(el);
    }
    images.refresh(viewport.nearRange());
    const wanted = [];
    for (let i = first; i <= last; i += 1) wanted.push(i);
    if (n && (active < first || active > last)) wanted.push(active);
    for (const index of wanted) {
      let el = rendered.get(index);
      if (!el) {
        el = pool.pop() || rows.create();
        insert(index, el);
      }
      renderRow(index, el);
    }
    updateActiveDescendant();
  }

  function schedule() {
    if (!frame) frame = requestAnimationFrame(render);
  }

  function updateActiveDescendant() {
    const id = rendered.has(store.state.activeRow) ? 'row-' + store.state.activeRow : null;
    if (id) list.setAttribute('aria-activedescendant', id);
    else list.removeAttribute('aria-activedescendant');
  }

  function showList() {
    const state = store.state;
    const n = state.photos.length;
    listed = true;
    rowsEl.style.height = n * rowHeight + 'px';
    list.setAttribute('aria-busy', 'false');
    if (n === 0) {
      messageEl.textContent = 'The photo list is empty.';
      messageEl.classList.remove('error');
      messageEl.hidden = false;
    } else {
      messageEl.hidden = true;
    }
    // The images can be asked for now (the viewport's size is known without a layout); the rows
    // are made in the next frame, with the layout it needs anyway.
    images.refresh(viewport.nearRange());
    schedule();
  }

  function showSource() {
    const source = store.state.source;
    if (source.status === 'failed') {
      messageEl.textContent = 'The photo list could not be loaded: ' + (source.error || 'unknown error');
      messageEl.classList.add('error');
      messageEl.hidden = store.state.photos.length > 0;
      list.setAttribute('aria-busy', 'false');
    } else if (source.status === 'loading' && !store.state.photos.length) {
      messageEl.textContent = loadingText();
      messageEl.classList.remove('error');
      messageEl.hidden = false;
    }
  }

  store.subscribe((kind, detail) => {
    switch (kind) {
      case 'list': showList(); break;
      case 'source': showSource(); break;
      case 'photos':
        for (const index of detail) {
          images.photoChanged(index);
          const el = rendered.get(index);
          if (el) renderRow(index, el);
        }
        images.pump();
        break;
      case 'scrolling': schedule(); break; // the image margin changes
      case 'active': render(); break;
      case 'strategy': schedule(); break;
      case 'connection':
        // Back: images that failed while the server was away are asked for again.
        if (store.state.connection === 'open') images.retryFailed();
        schedule();
        break;
      default: break;
    }
  });
  list.addEventListener('scroll', schedule, { passive: true });
  new ResizeObserver(schedule).observe(list);

  return {
    render,
    /** Redraws row `index` if it is in the DOM (its image arrived). */
    refreshRow(index) {
      const el = rendered.get(index);
      // (a row drawn by the server whose photo the events have not brought yet stays as drawn)
      if (el && store.state.photos[index]) renderRow(index, el);
    },
    get renderedCount() { return rendered.size; },
  };
}
