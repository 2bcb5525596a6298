// A tab nobody can see (document.visibilityState hidden) has no rows on screen: its viewer says so
// (a report `{"hidden": true}`: the server gives its work up, as the tutorial gives up offscreen
// rows), and when the tab is shown again it reports its rows, picking up where it was.

/** Wires the page's visibility to `reporter`; `onShown()` reports the rows on screen. */
export function attachVisibility({ reporter, onShown }) {
  const follow = () => {
    const hidden = document.visibilityState === 'hidden';
    if (hidden === reporter.hidden) return;
    reporter.setHidden(hidden);
    if (!hidden) onShown();
  };
  document.addEventListener('visibilitychange', follow);
  follow();
}
