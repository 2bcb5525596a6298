// The header's controls (About, Present, Lab) as one toolbar: one Tab stop for all of them (a roving
// tabindex: the control last focused, or the first one shown), the arrow keys, Home and End moving
// between them. The page's Tab walk stays short (issue 60: at most 12 stops) while every control is
// still reached by keyboard alone, and announced as a toolbar with its label and its controls' own.

const KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End']);

/** Makes the `toolbar` element's buttons and links one Tab stop moved through with the arrow keys. */
export function attachToolbar(toolbar) {
  let current = null;
  const all = [...toolbar.querySelectorAll('button, a[href]')];
  // Shown: laid out (About is not while the intro shows, by a style on the page; Present not for a follower).
  const shown = () => all.filter((el) => el.getClientRects().length > 0 && !el.disabled);

  /** One control in the Tab order: the current one while it is shown, else the first shown. */
  function rove() {
    const controls = shown();
    if (!controls.includes(current)) current = controls[0] || null;
    for (const el of all) el.tabIndex = el === current ? 0 : -1;
  }

  toolbar.addEventListener('focusin', (event) => {
    if (!shown().includes(event.target)) return;
    current = event.target;
    rove();
  });
  toolbar.addEventListener('keydown', (event) => {
    if (!KEYS.has(event.key) || event.altKey || event.ctrlKey || event.metaKey) return;
    const controls = shown();
    const at = controls.indexOf(document.activeElement);
    if (at < 0) return;
    const last = controls.length - 1;
    const next = { Home: 0, End: last, ArrowLeft: at - 1, ArrowUp: at - 1 }[event.key] ?? at + 1;
    event.preventDefault();
    controls[(next + controls.length) % controls.length].focus();
  });
  // A control shown or hidden changes its size from or to none: the stop moves with it.
  const sizes = new ResizeObserver(rove);
  for (const el of all) sizes.observe(el);
  rove();
}
