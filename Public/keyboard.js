// The list and the keyboard: the list is one tab stop (role listbox) whose current row is its
// aria-activedescendant. Arrow keys, PageUp / PageDown, Home and End move between rows and scroll
// only as far as needed to show the new row; Enter acts on it. Nothing inside the list takes focus
// (rows hold no controls), so focus never scrolls the list elsewhere. A key held down (auto-repeat)
// is one scroll until it is let go: the rows it only passes are not loaded.

/** Wires keys and focus on `list`. `act(index)` is Enter on a row. */
export function attachKeyboard({ store, list, viewport, rowHeight, act }) {
  const visible = () => viewport.visibleRange();

  /** Rows wholly on screen (at least one). */
  function wholeRows() {
    const { top, height } = viewport.metrics();
    const first = Math.ceil(top / rowHeight);
    const last = Math.floor((top + height) / rowHeight) - 1;
    const count = store.state.photos.length;
    return { first: Math.min(first, count - 1), last: Math.max(Math.min(last, count - 1), Math.min(first, count - 1)) };
  }

  /** The current row, or the nearest wholly visible one if it is off screen. */
  function current() {
    const active = store.state.activeRow;
    const rows = wholeRows();
    if (active >= rows.first && active <= rows.last) return active;
    return active < rows.first ? rows.first : rows.last;
  }

  function move(index) {
    store.setActiveRow(index);
    viewport.reveal(store.state.activeRow);
  }

  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || !store.state.photos.length) return;
    const count = store.state.photos.length;
    const rows = wholeRows();
    const page = Math.max(1, rows.last - rows.first + 1);
    const from = current();
    let to = null;
    let scroll = 0; // rows the list scrolls by before the current row is shown
    switch (event.key) {
      case 'ArrowDown': to = from + 1; break;
      case 'ArrowUp': to = from - 1; break;
      // A screenful: the list scrolls by its whole rows and the current row keeps its place on screen.
      case 'PageDown': to = from + page; scroll = page; break;
      case 'PageUp': to = from - page; scroll = -page; break;
      case 'Home': to = 0; break;
      case 'End': to = count - 1; break;
      case 'Enter':
        if (event.target !== list) return; // a button in a row does its own thing
        event.preventDefault();
        store.setActiveRow(from);
        act(from);
        return;
      default: return;
    }
    event.preventDefault();
    list.classList.add('is-keyboard');
    if (event.repeat) viewport.holdKeys(true);
    if (scroll) viewport.jumpTo(viewport.metrics().top + scroll * rowHeight);
    move(Math.max(0, Math.min(count - 1, to)));
  }

  list.addEventListener('keydown', onKey);
  // Keys pressed while nothing has the focus (a mouse user who only used the wheel) are the list's:
  // the list takes the focus and moves.
  const LIST_KEYS = new Set(['ArrowDown', 'ArrowUp', 'PageDown', 'PageUp', 'Home', 'End']);
  document.addEventListener('keydown', (event) => {
    const focused = document.activeElement;
    if (event.defaultPrevented || !LIST_KEYS.has(event.key) || (focused && focused !== document.body)) return;
    if (document.querySelector('dialog[open]')) return;
    list.focus({ preventScroll: true });
    onKey(event);
  });
  list.addEventListener('keyup', () => viewport.holdKeys(false));
  list.addEventListener('blur', () => viewport.holdKeys(false));

  // Tabbing in starts from a row on screen, not from one scrolled away.
  list.addEventListener('focus', () => {
    const range = visible();
    if (range) store.setActiveRow(current());
  });
  list.addEventListener('pointerdown', () => list.classList.remove('is-keyboard'));
}
