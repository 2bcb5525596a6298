// Presenting and following (issue 37), on the list and on the lab page: a presenter's scroll, watched
// live by the people it shares its follow link with. The presenter's page gets a share link and the
// count of people following; a follower's page (opened by `?follow=CODE`) moves where the presenter is
// and goes its own way at the first scroll of its own (a wheel, a touch, the scrollbar, a key, Esc),
// with a bar to follow again; when the presenter stops, the follower is told and keeps what it shows.
// Both audiences share this module: the bar, the state and the `presentation` event's flow
// (`createPresenting`); each adds its routes on it: the list's (list-presenting.js) and the lab's
// (lab/lab-presenting.js).

import { url } from './config.js';

export const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);

/** POSTs `body` as JSON to `path`: the response and its JSON body ({} when it has none). */
export async function post(path, body, options = {}) {
  const response = await fetch(url(path), {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, cache: 'no-store', body: JSON.stringify(body || {}), ...options,
  });
  return { response, body: await response.json().catch(() => ({})) };
}

/** The presentation bar, the Present button and the state both audiences keep. `texts` words the bar;
 * `presenterActions()` adds the audience's own buttons; `onEnded(wasFollowing)` and `onMove(position)`
 * carry out what a `presentation` event says to a follower. */
export function createPresenting({ bar, button, texts, presenterActions = () => [], onEnded = () => {}, onMove = () => {} }) {
  const params = new URLSearchParams(location.search);
  const state = {
    role: params.get('follow') ? 'follower' : null,
    code: params.get('follow'),
    following: !!params.get('follow'),
    followers: 0,
    ended: false,
    link: null,
  };
  let breakAway = () => {};
  let followAgain = () => {};

  function action(label, name, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'small-button';
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
      button.textContent = state.role === 'presenter' ? texts.presenting : texts.present;
    }
    bar.dataset.role = state.role || '';
    if (!state.role) { bar.replaceChildren(); return; }
    const text = document.createElement('span');
    text.className = 'presentation-text';
    const actions = [];
    if (state.role === 'presenter') {
      text.textContent = texts.presenter(state.followers);
      const link = document.createElement('input');
      link.readOnly = true;
      link.value = state.link || '';
      link.className = 'presentation-link';
      link.setAttribute('aria-label', 'Follow link');
      link.addEventListener('focus', () => link.select());
      text.append(link);
      actions.push(action('Copy link', 'copy-link', () => navigator.clipboard && navigator.clipboard.writeText(link.value)));
      actions.push(...presenterActions(action));
      actions.push(action('Stop presenting', 'stop-presenting', () => core.stopPresenting()));
    } else if (state.ended) {
      text.textContent = texts.ended;
      if (texts.closable) actions.push(action('Close', 'close-presentation', () => { state.role = null; render(); }));
    } else if (state.following) {
      text.textContent = texts.following();
      actions.push(action('Stop following (Esc)', 'stop-following', () => breakAway()));
    } else {
      text.textContent = texts.own;
      actions.push(action('Follow again', 'follow-again', () => followAgain()));
    }
    bar.replaceChildren(text, ...actions);
    texts.rendered?.();
  }

  /** The presenter's page presents `body` (a `201` of a start): its code, count and link. */
  function presenting(body) {
    Object.assign(state, { role: 'presenter', code: body.code, followers: body.followers, link: new URL(body.follow, location.href).href });
    render();
  }

  /** The presenter's page presents no more. */
  function notPresenting() {
    Object.assign(state, { role: null, code: null, link: null, followers: 0 });
  }

  /** The presentation ended: a follower keeps its place and goes on alone. */
  function ended() {
    const wasFollowing = state.following;
    Object.assign(state, { ended: true, following: false });
    render();
    onEnded(wasFollowing);
  }

  /** A `presentation` event: the count for a presenter; the presenter's place, or its end, for a follower. */
  function onPresentation(data) {
    if (!data || data.code !== state.code) return;
    if (data.role === 'presenter' && state.role === 'presenter') {
      if (data.ended) notPresenting();
      else state.followers = data.followers;
      render();
    } else if (data.role === 'follower' && state.role === 'follower') {
      if (data.ended) { ended(); return; }
      if (Number.isInteger(data.first)) onMove({ first: data.first, last: data.last, scrolling: !!data.scrolling });
    }
  }

  /** A person's own input on `scroller` ends following; the page's own moves (jumpTo) are not input. */
  function watchOwnInput(scroller) {
    const own = () => { if (state.following) breakAway(); };
    scroller.addEventListener('wheel', own, { passive: true });
    scroller.addEventListener('touchstart', own, { passive: true });
    scroller.addEventListener('pointerdown', (event) => { if (event.offsetX >= scroller.clientWidth) own(); });
    return own;
  }

  const core = {
    state, params, post, render, presenting, notPresenting, ended, onPresentation, watchOwnInput, stopPresenting: () => {},
    /** The audience's ways to go alone and to follow again. */
    following(away, again) { breakAway = away; followAgain = again; },
  };
  return core;
}
