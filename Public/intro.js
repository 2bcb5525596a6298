// The introduction: what the page is and what to try. Shown until the visitor dismisses it (kept
// in localStorage, and read by the page's inline script before the first paint, so the space it
// takes is settled before anything is drawn); the header's "About" button brings it back. While it
// shows, "About" is not offered (its "Got it" is the way out), which keeps the Tab order short.

const KEY = 'classicPhotos.introDismissed';

function remember(dismissed) {
  try {
    if (dismissed) localStorage.setItem(KEY, '1'); else localStorage.removeItem(KEY);
  } catch (_) { /* private mode: the intro comes back next time */ }
}

/** Wires the intro section `intro`, its dismiss button and the header's `about` button. */
export function attachIntro({ intro, about, afterDismiss, strategyLink }) {
  const root = document.documentElement;
  function show(visible) {
    if (visible) delete root.dataset.intro; else root.dataset.intro = 'dismissed';
  }

  intro.querySelector('[data-action="dismiss-intro"]').addEventListener('click', () => {
    remember(true);
    show(false);
    afterDismiss.focus({ preventScroll: true });
  });
  about.addEventListener('click', () => {
    remember(false);
    show(true);
    intro.focus({ preventScroll: true });
  });
  // "Open a second tab with another strategy": links to this page with the other strategy.
  for (const link of intro.querySelectorAll('[data-strategy-link]')) {
    link.href = strategyLink(link.dataset.strategyLink);
  }
}
