// The panel as a sheet: below about 900 px wide (or on a short screen) it sits under the list,
// starts folded to its one-line summary, and opens to at most a third of the height (app.css).

const NARROW = '(max-width: 900px), (max-height: 500px)';

/** Wires the panel's <details>; `onToggle()` when it opens or closes. */
export function attachSheet({ details, onToggle }) {
  const narrow = window.matchMedia(NARROW);
  let touched = false;
  const fit = () => { if (!touched) details.open = !narrow.matches; };
  details.querySelector('summary').addEventListener('click', () => { touched = true; });
  narrow.addEventListener('change', fit);
  details.addEventListener('toggle', onToggle);
  fit();
}
