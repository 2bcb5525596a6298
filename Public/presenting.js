// Presenting and following (issue 37): a presenter's scroll, watched live by the people it shares
// its follow link with. The presenter's page gets a share link and the count of people following;
// a follower's page (opened by `?follow=CODE`) moves where the presenter is, sends no viewport
// reports of its own while it follows (the server does the presenter's work once for everyone),
// and goes its own way at the first scroll of its own (a wheel, a touch, a key, the scrollbar),
// with a bar to follow again. `?present` starts presenting at once. "Start cold" (the presenter's
// only) empties the list's caches for everyone who watches, and every page of the presentation starts
// over: its rows back to placeholders, loaded again from the presenter's rows.

import { url } from './config.js';

const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);

/** Wires the Present button and the presentation bar. `reportVisible()` reports this page's own rows;
 * `onColdStart()` makes the page start over (it forgets the images it loaded). */
export function attachPresenting({ store, list, button, bar, viewport, reporter, rowHeight, onColdStart = () => {} }) {
  const params = new URLSearchParams(location.search);
  const state = {
    role: params.get('follow') ? 'follower' : null,
    code: params.get('follow'),
    following: !!params.get('follow'),
    followers: 0,
    ended: false,
    joining: false, // asking to follow again: reports are held until the answer
    link: null,
    trail: [], // each move applied as { first, scrolling, at: page clock } (the latest 50), for the browser tests
    last: null,
    coldStarts: null, // the presentation's cold starts this page knows of (null: none heard yet)
    startedOver: 0, // how many times this page started over, for the browser tests
  };

  function render() {
    bar.hidden = !state.role;
    // The page's height above the bar (app.css): set after the bar's contents below, at the next frame.
    requestAnimationFrame(() => document.documentElement.style.setProperty(
      '--presentation-bar-height', bar.hidden ? '0px' : bar.offsetHeight + 'px'));
    bar.dataset.role = state.role || '';
    button.hidden = state.role === 'follower';
    button.setAttribute('aria-pressed', String(state.role === 'presenter'));
    button.textContent = state.role === 'presenter' ? 'Presenting' : 'Present';
    if (!state.role) { bar.replaceChildren(); return; }
    const text = document.createElement('span');
    text.className = 'presentation-text';
    const actions = [];
    if (state.role === 'presenter') {
      text.textContent = `Presenting: ${state.followers} following. Share this link: `;
      const link = document.createElement('input');
      link.readOnly = true;
      link.value = state.link || '';
      link.className = 'presentation-link';
      link.setAttribute('aria-label', 'Follow link');
      link.addEventListener('focus', () => link.select());
      text.append(link);
      actions.push(action('Copy link', 'copy-link', () => navigator.clipboard && navigator.clipboard.writeText(link.value)));
      const cold = action('Start cold', 'start-cold', startCold);
      cold.title = 'Empty the server\'s caches: every row loads again, on your screen and your followers\''
        + ' (only while everyone on the server follows you)';
      actions.push(cold);
      actions.push(action('Stop presenting', 'stop-presenting', stopPresenting));
    } else if (state.ended) {
      text.textContent = 'The presentation has ended. You are on your own from here.';
      actions.push(action('Close', 'close-presentation', () => { state.role = null; render(); }));
    } else if (state.following) {
      // Only a page whose live updates arrive hears the presenter's moves (nor is it in their count).
      text.textContent = store.state.connection === 'open'
        ? 'Following the presenter: the list moves as they scroll. Scroll yourself to look around.'
        : 'Waiting for the server\'s live updates to follow the presenter…';
      actions.push(action('Stop following (Esc)', 'stop-following', () => breakAway()));
    } else {
      text.textContent = 'You are scrolling on your own.';
      actions.push(action('Follow again', 'follow-again', followAgain));
    }
    bar.replaceChildren(text, ...actions);
  }

  function action(label, name, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'small-button';
    b.dataset.action = name;
    b.textContent = label;
    b.addEventListener('click', onClick);
    return b;
  }

  async function startPresenting() {
    const response = await fetch(url('/api/presentations'), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, cache: 'no-store',
      body: JSON.stringify({ viewer: store.state.viewer }),
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      store.setNotice('presentation', 'Could not start presenting: ' + (body.error || response.status), 'error');
      return;
    }
    Object.assign(state, { role: 'presenter', code: body.code, followers: body.followers, link: new URL(body.follow, location.href).href });
    render();
  }

  /** Asks the server to start the list cold; a refusal (others would lose their work, too soon) is said. */
  async function startCold() {
    if (state.role !== 'presenter') return;
    const response = await fetch(url(`/api/presentations/${state.code}/cold-starts`), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, cache: 'no-store',
      body: JSON.stringify({ viewer: store.state.viewer }),
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      store.setNotice('presentation', 'Could not start cold: ' + (body.error || response.status), 'error');
      return;
    }
    store.setNotice('presentation', null);
    // Its own cold start starts this page over even before it heard a count.
    if (state.coldStarts == null) state.coldStarts = body.coldStarts - 1;
    heardColdStarts(body.coldStarts);
  }

  /** The presentation started cold `count` times: a larger count than this page knew starts it over. */
  function heardColdStarts(count) {
    if (!Number.isInteger(count)) return;
    const known = state.coldStarts;
    state.coldStarts = known == null ? count : Math.max(known, count);
    if (known == null || count <= known) return;
    state.startedOver += 1;
    onColdStart();
  }

  async function stopPresenting() {
    if (state.role !== 'presenter') return;
    const code = state.code;
    Object.assign(state, { role: null, code: null, link: null, followers: 0, coldStarts: null });
    render();
    await fetch(url(`/api/presentations/${code}?viewer=${encodeURIComponent(store.state.viewer)}`), { method: 'DELETE', cache: 'no-store' });
  }

  /** This page goes its own way: its rows are its own from its next report, which ends following. */
  function breakAway() {
    if (!state.following) return;
    state.following = false;
    render();
    reporter.send();
    viewport.reportVisible();
  }

  async function followAgain() {
    // Reports are held from the ask on: one sent before its answer (the stop of this page's own
    // scroll) could reach the server after it and end the following there, unknown to this page.
    state.joining = true;
    let response;
    try {
      response = await fetch(url(`/api/presentations/${state.code}/followers`), {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, cache: 'no-store',
        body: JSON.stringify({ viewer: store.state.viewer }),
      });
    } finally {
      state.joining = false;
      // Not following after all (the ask failed): what was held goes now.
      if (!response || !response.ok) reporter.send();
    }
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      // It ended (or the server restarted and knows it no more): this page is on its own.
      const wasFollowing = state.following;
      Object.assign(state, { ended: true, following: false });
      render();
      if (wasFollowing) { reporter.send(); viewport.reportVisible(); }
      return;
    }
    state.following = true;
    render();
    move(body);
  }

  function move(data) {
    if (!state.following || !Number.isInteger(data.first)) return;
    state.last = { first: data.first, last: data.last, scrolling: !!data.scrolling };
    viewport.jumpTo(data.first * rowHeight);
    state.trail.push({ first: data.first, scrolling: !!data.scrolling, at: performance.now() });
    if (state.trail.length > 50) state.trail.shift();
  }

  /** A `presentation` event: the count for a presenter; the presenter's place, or its end, for a follower. */
  function onPresentation(data) {
    if (data.code === state.code && data.role === state.role && !data.ended) heardColdStarts(data.coldStarts);
    if (data.role === 'presenter' && state.role === 'presenter' && data.code === state.code) {
      state.followers = data.followers;
      render();
    } else if (data.role === 'follower' && state.role === 'follower' && data.code === state.code) {
      if (data.ended) {
        const wasFollowing = state.following;
        Object.assign(state, { ended: true, following: false });
        render();
        if (wasFollowing) { reporter.send(); viewport.reportVisible(); }
        return;
      }
      move(data);
    }
  }

  // A person's own scroll ends following; the page's own moves (jumpTo) are not input.
  const own = () => { if (state.following) breakAway(); };
  list.addEventListener('wheel', own, { passive: true });
  list.addEventListener('touchstart', own, { passive: true });
  list.addEventListener('pointerdown', (event) => { if (event.offsetX >= list.clientWidth) own(); });
  document.addEventListener('keydown', (event) => {
    if (!state.following || event.defaultPrevented) return;
    if (event.key === 'Escape' && !document.querySelector('dialog[open]')) own();
    else if (SCROLL_KEYS.has(event.key) && (document.activeElement === list || document.activeElement === document.body)) own();
  });
  button.addEventListener('click', () => (state.role === 'presenter' ? stopPresenting() : startPresenting()));
  store.subscribe((kind) => { if (kind === 'connection' && state.role === 'follower' && state.following) render(); });
  render();

  return {
    onPresentation,
    /** The page has a new viewer id (the server restarted): a follower asks to follow again with it
     * (or goes on alone if the presentation is gone); a presenter's presentation went with the old one. */
    renewed() {
      if (state.role === 'follower' && state.following) followAgain();
      else if (state.role === 'presenter') { Object.assign(state, { role: null, code: null, link: null, followers: 0, coldStarts: null }); render(); }
    },
    /** Whether this page's reports are held (it follows a presenter, or asks to follow again). */
    get following() { return state.following || state.joining; },
    /** Whether this page presents (its scroll is shown to followers as it goes). */
    get presenting() { return state.role === 'presenter'; },
    /** Starts presenting once the page has its viewer (`?present`). */
    startIfAsked() { if (params.has('present') && !state.role) startPresenting(); },
    get state() {
      return {
        role: state.role, code: state.code, following: state.following, followers: state.followers, ended: state.ended,
        link: state.link, last: state.last, moves: state.trail.map((move) => move.at), trail: state.trail.slice(), coldStarts: state.coldStarts, startedOver: state.startedOver,
      };
    },
  };
}
