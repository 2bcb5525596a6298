// The introduction: what the page is and what to try. Shown until the visitor dismisses it (kept
// in localStorage); the header's "About" button brings it back.

const KEY = 'classicPhotos.introDismissed';

function remembered() {
  try { return localStorage.getItem(KEY) === '1'; } catch (_) { return false; }
}

function remember(dismissed) {
  try {
    if (dismissed) localStorage.setItem(KEY, '1'); else localStorage.removeItem(KEY);
  } catch (_) { /* private mode: the intro comes back next time */ }
}

/** Wires the intro section `intro`, its dismiss button and the header's `about` button. */
export function attachIntro({ intro, about, afterDismiss, strategyLink }) {
  function show(visible) {
    intro.hidden = !visible;
    about.setAttribute('aria-expanded', String(visible));
  }

  intro.querySelector('[data-action="dismiss-intro"]').addEventListener('click', () => {
    remember(true);
    show(false);
    afterDismiss.focus({ preventScroll: true });
  });
  about.addEventListener('click', () => {
    const visible = intro.hidden;
    remember(!visible);
    show(visible);
    if (visible) intro.focus({ preventScroll: true });
  });
  // "Open a second tab with another strategy": links to this page with each of the others.
  for (const link of intro.querySelectorAll('[data-strategy-link]')) {
    link.href = strategyLink(link.dataset.strategyLink);
  }
  show(!remembered());
}
