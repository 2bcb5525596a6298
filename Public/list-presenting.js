// The list's part in a presentation (presenting.js): its routes, the follower's held reports and
// jumps, and "Start cold".

import { url } from './config.js';
import { SCROLL_KEYS, createPresenting, post } from './presenting.js';

/** The list's presenting: wires the Present button and the presentation bar. `reportVisible()` reports
 * this page's own rows; `onColdStart()` makes the page start over (it forgets the images it loaded).
 * A follower sends no viewport reports of its own while it follows (the server does the presenter's
 * work once for everyone). "Start cold" (the presenter's only) empties the list's caches for everyone
 * who watches, and every page of the presentation starts over from the presenter's rows. */
export function attachPresenting({ store, list, button, bar, viewport, reporter, rowHeight, onColdStart = () => {} }) {
  const extra = {
    joining: false, // asking to follow again: reports are held until the answer
    trail: [], // each move applied as { first, scrolling, at: page clock } (the latest 50), for the browser tests
    last: null,
    coldStarts: null, // the presentation's cold starts this page knows of (null: none heard yet)
    startedOver: 0, // how many times this page started over, for the browser tests
  };
  const core = createPresenting({
    bar, button,
    texts: {
      present: 'Present', presenting: 'Presenting', closable: true,
      presenter: (followers) => `Presenting: ${followers} following. Share this link: `,
      ended: 'The presentation has ended. You are on your own from here.',
      // Only a page whose live updates arrive hears the presenter's moves (nor is it in their count).
      following: () => (store.state.connection === 'open'
        ? 'Following the presenter: the list moves as they scroll. Scroll yourself to look around.'
        : 'Waiting for the server\'s live updates to follow the presenter…'),
      own: 'You are scrolling on your own.',
      // The page's height above the bar (app.css): set after the bar's contents, at the next frame.
      rendered: () => requestAnimationFrame(() => document.documentElement.style.setProperty(
        '--presentation-bar-height', bar.hidden ? '0px' : bar.offsetHeight + 'px')),
    },
    presenterActions: (action) => {
      const cold = action('Start cold', 'start-cold', startCold);
      cold.title = 'Empty the server\'s caches: every row loads again, on your screen and your followers\''
        + ' (only while everyone on the server follows you)';
      return [cold];
    },
    onEnded: (wasFollowing) => { if (wasFollowing) ownRowsAgain(); },
    onMove: move,
  });
  const { state, render } = core;

  async function startPresenting() {
    const { response, body } = await post('/api/presentations', { viewer: store.state.viewer });
    if (!response.ok) {
      store.setNotice('presentation', 'Could not start presenting: ' + (body.error || response.status), 'error');
      return;
    }
    core.presenting(body);
  }

  /** Asks the server to start the list cold; a refusal (others would lose their work, too soon) is said. */
  async function startCold() {
    if (state.role !== 'presenter') return;
    const { response, body } = await post(`/api/presentations/${state.code}/cold-starts`, { viewer: store.state.viewer });
    if (!response.ok) {
      store.setNotice('presentation', 'Could not start cold: ' + (body.error || response.status), 'error');
      return;
    }
    store.setNotice('presentation', null);
    // Its own cold start starts this page over even before it heard a count.
    if (extra.coldStarts == null) extra.coldStarts = body.coldStarts - 1;
    heardColdStarts(body.coldStarts);
  }

  /** The presentation started cold `count` times: a larger count than this page knew starts it over. */
  function heardColdStarts(count) {
    if (!Number.isInteger(count)) return;
    const known = extra.coldStarts;
    extra.coldStarts = known == null ? count : Math.max(known, count);
    if (known == null || count <= known) return;
    extra.startedOver += 1;
    onColdStart();
  }

  function forget() {
    core.notPresenting();
    extra.coldStarts = null;
    render();
  }

  core.stopPresenting = async () => {
    if (state.role !== 'presenter') return;
    const code = state.code;
    forget();
    await fetch(url(`/api/presentations/${code}?viewer=${encodeURIComponent(store.state.viewer)}`), { method: 'DELETE', cache: 'no-store' });
  };

  /** This page's rows are its own again: what its reports held goes, and its rows are reported. */
  function ownRowsAgain() {
    reporter.send();
    viewport.reportVisible();
  }

  /** This page goes its own way: its rows are its own from its next report, which ends following. */
  function breakAway() {
    if (!state.following) return;
    state.following = false;
    render();
    ownRowsAgain();
  }

  async function followAgain() {
    // Reports are held from the ask on: one sent before its answer (the stop of this page's own
    // scroll) could reach the server after it and end the following there, unknown to this page.
    extra.joining = true;
    let asked;
    try {
      asked = await post(`/api/presentations/${state.code}/followers`, { viewer: store.state.viewer });
    } finally {
      extra.joining = false;
      // Not following after all (the ask failed): what was held goes now.
      if (!asked || !asked.response.ok) reporter.send();
    }
    // It ended (or the server restarted and knows it no more): this page is on its own.
    if (!asked.response.ok) { core.ended(); return; }
    state.following = true;
    render();
    move(asked.body);
  }

  function move(data) {
    if (!state.following || !Number.isInteger(data.first)) return;
    extra.last = { first: data.first, last: data.last, scrolling: !!data.scrolling };
    viewport.jumpTo(data.first * rowHeight);
    extra.trail.push({ first: data.first, scrolling: !!data.scrolling, at: performance.now() });
    if (extra.trail.length > 50) extra.trail.shift();
  }

  core.following(breakAway, followAgain);
  const own = core.watchOwnInput(list);
  document.addEventListener('keydown', (event) => {
    if (!state.following || event.defaultPrevented) return;
    if (event.key === 'Escape' && !document.querySelector('dialog[open]')) own();
    else if (SCROLL_KEYS.has(event.key) && (document.activeElement === list || document.activeElement === document.body)) own();
  });
  button.addEventListener('click', () => (state.role === 'presenter' ? core.stopPresenting() : startPresenting()));
  store.subscribe((kind) => { if (kind === 'connection' && state.role === 'follower' && state.following) render(); });
  render();

  return {
    /** A `presentation` event (a presenter's or follower's own, unended, carries the cold starts). */
    onPresentation(data) {
      if (data.code === state.code && data.role === state.role && !data.ended) heardColdStarts(data.coldStarts);
      core.onPresentation(data);
    },
    /** The page has a new viewer id (the server restarted): a follower asks to follow again with it
     * (or goes on alone if the presentation is gone); a presenter's presentation went with the old one. */
    renewed() {
      if (state.role === 'follower' && state.following) followAgain();
      else if (state.role === 'presenter') forget();
    },
    /** Whether this page's reports are held (it follows a presenter, or asks to follow again). */
    get following() { return state.following || extra.joining; },
    /** Whether this page presents (its scroll is shown to followers as it goes). */
    get presenting() { return state.role === 'presenter'; },
    /** Starts presenting once the page has its viewer (`?present`). */
    startIfAsked() { if (core.params.has('present') && !state.role) startPresenting(); },
    get state() {
      return {
        role: state.role, code: state.code, following: state.following, followers: state.followers, ended: state.ended,
        link: state.link, last: extra.last, moves: extra.trail.map((move) => move.at), trail: extra.trail.slice(),
        coldStarts: extra.coldStarts, startedOver: extra.startedOver,
      };
    },
  };
}
