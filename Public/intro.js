// The introduction: what the page is and what to try. Shown until the visitor dismisses it (kept
// in localStorage, and read by the page's inline script before the first paint, so the space it
// takes is settled before anything is drawn); the header's "About" button brings it back. While it
// shows, "About" is not offered (its "Got it" is the way out), which keeps the Tab order short.
// Its body folds to its last line at the first scroll of the list or after a first look, so a
// laptop's screen shows more rows; "More" unfolds it. It sits below the list (app.css): folding
// grows the list at its bottom edge and moves nothing on screen.

const KEY = 'classicPhotos.introDismissed';
/** How long a first look lasts before the body folds by itself. */
export const FIRST_LOOK_MS = 15000;

function remember(dismissed) {
  try {
    if (dismissed) localStorage.setItem(KEY, '1'); else localStorage.removeItem(KEY);
  } catch (_) { /* private mode: the intro comes back next time */ }
}

/** Wires the intro section `intro`, its buttons, the header's `about` button and the `list` whose
 * first scroll folds it. */
export function attachIntro({ intro, about, list, afterDismiss, strategyLink }) {
  const root = document.documentElement;
  const more = intro.querySelector('[data-action="more-intro"]');
  const head = intro.querySelector('.intro-head');
  let lookTimer = null;

  /** 'open', 'brief' (its last line only) or 'dismissed'. */
  function show(state) {
    if (state === 'open') delete root.dataset.intro; else root.dataset.intro = state;
    more.setAttribute('aria-expanded', String(state === 'open'));
    more.textContent = state === 'open' ? 'Less' : 'More';
    clearTimeout(lookTimer);
    lookTimer = null;
  }
  const fold = () => { if (!root.dataset.intro) show('brief'); };

  intro.querySelector('[data-action="dismiss-intro"]').addEventListener('click', () => {
    remember(true);
    show('dismissed');
    afterDismiss.focus({ preventScroll: true });
  });
  more.addEventListener('click', () => show(root.dataset.intro === 'brief' ? 'open' : 'brief'));
  about.addEventListener('click', () => {
    remember(false);
    show('open');
    head.focus({ preventScroll: true });
  });
  list.addEventListener('scroll', fold, { passive: true, once: true });
  if (!root.dataset.intro) lookTimer = setTimeout(fold, FIRST_LOOK_MS);
  // "Open a second tab with another strategy": links to this page with the other strategy.
  for (const link of intro.querySelectorAll('[data-strategy-link]')) {
    link.href = strategyLink(link.dataset.strategyLink);
  }
}
