// Presenting the lab (issue 37). A presenter gets a share link (`/lab?follow=CODE`) and the count of
// people following, live; its next run ("Run again", a trace on a used lab) carries the presentation
// on. A follower's page runs no lab of its own: it shows the presenter's run (a watcher per server
// lane, `GET /api/lab-presentations/CODE/followers/KEY` for the figures, the same for everyone) and
// its lanes scroll where the presenter's do (its `presentation` events). A scroll of its own, the
// Stop button or Esc stops following (the bar offers to follow again); when the presenter stops, the
// follower is told and keeps what it shows.

import { url } from '../config.js';

const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);

/** The bar and the Present button of the lab page. `lab()` is the presenter's running lab (its id);
 * `say(text)` tells the person what went wrong. */
export function createLabPresenting({ bar, button, lab, say = () => {} }) {
  const params = new URLSearchParams(location.search);
  const state = {
    role: params.get('follow') ? 'follower' : null,
    code: params.get('follow'),
    follower: null, // a follower's key
    following: !!params.get('follow'),
    followers: 0,
    ended: false,
    link: null,
    run: 0,
    last: null, // where the presenter is: {first, last, scrolling}
    moves: 0,
    movedAt: null, // wall clock of the last move applied, for the browser tests
  };
  let follower = null; // a follower's hooks: move(position), stop(), view()

  function action(label, name, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.action = name;
    b.textContent = label;
    b.addEventListener('click', onClick);
    return b;
  }

  function render() {
    bar.hidden = !state.role;
    if (button) {
      button.hidden = state.role === 'follower';
      button.setAttribute('aria-pressed', String(state.role === 'presenter'));
      button.textContent = state.role === 'presenter' ? 'Presenting this lab' : 'Present this lab';
    }
    bar.dataset.role = state.role || '';
    if (!state.role) { bar.replaceChildren(); return; }
    const text = document.createElement('span');
    const actions = [];
    if (state.role === 'presenter') {
      text.textContent = `Presenting this lab: ${state.followers} following. Share this link: `;
      const link = document.createElement('input');
      link.readOnly = true;
      link.value = state.link || '';
      link.setAttribute('aria-label', 'Follow link');
      link.addEventListener('focus', () => link.select());
      text.append(link);
      actions.push(action('Copy link', 'copy-link', () => navigator.clipboard && navigator.clipboard.writeText(link.value)));
      actions.push(action('Stop presenting', 'stop-presenting', () => stopPresenting()));
    } else if (state.ended) {
      text.textContent = 'The presentation has ended: the lanes keep what they showed.';
    } else if (state.following) {
      text.textContent = `Following the presenter's lab (run ${state.run}): its lanes, live, scroll as the presenter scrolls.`;
      actions.push(action('Stop following (Esc)', 'stop-following', () => breakAway()));
    } else {
      text.textContent = "You are scrolling the presenter's lanes on your own.";
      actions.push(action('Follow again', 'follow-again', () => followAgain()));
    }
    bar.replaceChildren(text, ...actions);
  }

  async function post(path, body, options = {}) {
    const response = await fetch(url(path), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, cache: 'no-store', body: JSON.stringify(body || {}), ...options,
    });
    return { response, body: await response.json().catch(() => ({})) };
  }

  /** Starts presenting the running lab; returns an error text, or null. */
  async function startPresenting() {
    const current = lab();
    if (!current || !current.id) return 'no lab is running';
    const { response, body } = await post(`/api/labs/${current.id}/presentation`);
    if (!response.ok) return body.error || String(response.status);
    Object.assign(state, { role: 'presenter', code: body.code, followers: body.followers, link: new URL(body.follow, location.href).href });
    render();
    return null;
  }

  async function stopPresenting({ keepalive = false } = {}) {
    const current = lab();
    if (state.role !== 'presenter') return;
    Object.assign(state, { role: null, code: null, link: null, followers: 0 });
    render();
    if (current && current.id) await fetch(url(`/api/labs/${current.id}/presentation`), { method: 'DELETE', keepalive }).catch(() => {});
  }

  /** The presenter's new run `id` (its previous one `previous`) carries the presentation on. */
  async function newRun(previous, id) {
    if (state.role !== 'presenter' || !previous) return;
    const { response, body } = await post(`/api/labs/${id}/presentation`, { after: previous });
    if (response.ok) state.followers = body.followers;
    else Object.assign(state, { role: null, code: null, link: null, followers: 0 });
    render();
  }

  function breakAway() {
    if (!state.following) return;
    state.following = false;
    render();
  }

  function followAgain() {
    state.following = true;
    render();
    if (state.last && follower) follower.move(state.last);
  }

  /** The presentation ended (an event, or a view that says so): the follower keeps what it shows. */
  function ended() {
    if (state.ended) return;
    Object.assign(state, { ended: true, following: false });
    render();
    if (follower) follower.stop();
  }

  /** A `presentation` event on a lane's stream. */
  function onPresentation(data) {
    if (!data || data.code !== state.code) return;
    if (data.role === 'presenter' && state.role === 'presenter') {
      if (data.ended) Object.assign(state, { role: null, code: null, link: null, followers: 0 });
      else state.followers = data.followers;
      render();
    } else if (data.role === 'follower' && state.role === 'follower') {
      if (data.ended) { ended(); return; }
      if (Number.isInteger(data.first)) moved({ first: data.first, last: data.last, scrolling: !!data.scrolling });
    }
  }

  function moved(position) {
    const same = state.last && state.last.first === position.first && state.last.last === position.last
      && state.last.scrolling === position.scrolling;
    state.last = position;
    if (!same && state.following && follower) {
      state.moves += 1;
      follower.move(position);
      state.movedAt = Date.now();
    }
  }

  /** Follower: joins the presentation; `hooks` builds a run's lanes (`show(view)`), moves them, stops them. */
  async function follow(hooks) {
    follower = hooks;
    const { response, body } = await post(`/api/lab-presentations/${state.code}/followers`);
    if (!response.ok) {
      if (response.status === 404) ended();
      return body.error || String(response.status);
    }
    state.follower = body.follower;
    view(body);
    return null;
  }

  /** A follower's view (joining, then once a second): a new run is built, the place applied. */
  function view(body) {
    if (body.run !== state.run && body.lab) {
      state.run = body.run;
      follower.show(body);
      render();
    }
    if (Number.isInteger(body.first)) moved({ first: body.first, last: body.last, scrolling: !!body.scrolling });
    state.followers = body.followers;
  }

  /** Follower: its view now, or null (a 404 ends it: the presentation ended). */
  async function fetchView() {
    if (state.ended || !state.follower) return null;
    const response = await fetch(url(`/api/lab-presentations/${state.code}/followers/${state.follower}`), { cache: 'no-store' });
    if (response.status === 404) { ended(); return null; }
    if (!response.ok) return null;
    const body = await response.json();
    view(body);
    return body.run === state.run ? body.lab : null;
  }

  function leave() {
    if (state.role === 'presenter') stopPresenting({ keepalive: true });
    if (state.role === 'follower' && state.follower && !state.ended) {
      fetch(url(`/api/lab-presentations/${state.code}/followers/${state.follower}`), { method: 'DELETE', keepalive: true }).catch(() => {});
    }
  }

  /** A follower's own input on `scroller` stops following; the page's own moves are not input. */
  function watchOwnInput(scroller) {
    const own = () => { if (state.following) breakAway(); };
    scroller.addEventListener('wheel', own, { passive: true });
    scroller.addEventListener('touchstart', own, { passive: true });
    scroller.addEventListener('pointerdown', (event) => { if (event.offsetX >= scroller.clientWidth) own(); });
    scroller.addEventListener('keydown', (event) => { if (SCROLL_KEYS.has(event.key)) own(); });
  }

  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && state.role === 'follower' && state.following) breakAway();
  });
  if (button) {
    button.addEventListener('click', async () => {
      if (state.role === 'presenter') { stopPresenting(); return; }
      const error = await startPresenting();
      if (error) say(`Could not present the lab: ${error}`);
    });
  }
  render();

  return {
    startPresenting, newRun, onPresentation, follow, fetchView, leave, watchOwnInput,
    get isFollower() { return state.role === 'follower'; },
    get asksToPresent() { return params.has('present'); },
    get state() {
      const { role, code, following, followers, ended: over, link, run, last, moves, movedAt } = state;
      return { role, code, following, followers, ended: over, link, run, last, moves, movedAt };
    },
  };
}
