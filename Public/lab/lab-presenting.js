// The lab's part in a presentation (../presenting.js): its routes, a presenter's next run, and a
// follower's view of the presenter's run.

import { url } from '../config.js';
import { SCROLL_KEYS, createPresenting, post } from '../presenting.js';

/** The lab's presenting: the bar and the Present button of the lab page. `lab()` is the presenter's
 * running lab (its id); `say(text)` tells the person what went wrong. A presenter's next run ("Run
 * again", a trace on a used lab) carries the presentation on. A follower's page runs no lab of its
 * own: it shows the presenter's run (a watcher per server lane, its view once a second for the
 * figures, the same for everyone) and its lanes scroll where the presenter's do. */
export function createLabPresenting({ bar, button, lab, say = () => {} }) {
  const extra = {
    follower: null, // a follower's key
    run: 0,
    last: null, // where the presenter is: {first, last, scrolling}
    moves: 0,
    movedAt: null, // wall clock of the last move applied, for the browser tests
  };
  let follower = null; // a follower's hooks: move(position), stop(), show(view)
  const core = createPresenting({
    bar, button,
    texts: {
      present: 'Present this lab', presenting: 'Presenting this lab',
      presenter: (followers) => `Presenting this lab: ${followers} following. Share this link: `,
      ended: 'The presentation has ended: the lanes keep what they showed.',
      following: () => `Following the presenter's lab (run ${extra.run}): its lanes, live, scroll as the presenter scrolls.`,
      own: "You are scrolling the presenter's lanes on your own.",
    },
    onEnded: () => { if (follower) follower.stop(); },
    onMove: moved,
  });
  const { state, render } = core;

  /** Starts presenting the running lab; returns an error text, or null. */
  async function startPresenting() {
    const current = lab();
    if (!current || !current.id) return 'no lab is running';
    const { response, body } = await post(`/api/labs/${current.id}/presentation`);
    if (!response.ok) return body.error || String(response.status);
    core.presenting(body);
    return null;
  }

  core.stopPresenting = async ({ keepalive = false } = {}) => {
    const current = lab();
    if (state.role !== 'presenter') return;
    core.notPresenting();
    render();
    if (current && current.id) await fetch(url(`/api/labs/${current.id}/presentation`), { method: 'DELETE', keepalive }).catch(() => {});
  };

  /** The presenter's new run `id` (its previous one `previous`) carries the presentation on. */
  async function newRun(previous, id) {
    if (state.role !== 'presenter' || !previous) return;
    const { response, body } = await post(`/api/labs/${id}/presentation`, { after: previous });
    if (response.ok) state.followers = body.followers;
    else core.notPresenting();
    render();
  }

  /** The presentation ended (an event, or a view that says so): the follower keeps what it shows. */
  function ended() {
    if (!state.ended) core.ended();
  }

  function moved(position) {
    const same = extra.last && extra.last.first === position.first && extra.last.last === position.last
      && extra.last.scrolling === position.scrolling;
    extra.last = position;
    if (!same && state.following && follower) {
      extra.moves += 1;
      follower.move(position);
      extra.movedAt = Date.now();
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
    extra.follower = body.follower;
    view(body);
    return null;
  }

  /** A follower's view (joining, then once a second): a new run is built, the place applied. */
  function view(body) {
    if (body.run !== extra.run && body.lab) {
      extra.run = body.run;
      follower.show(body);
      render();
    }
    if (Number.isInteger(body.first)) moved({ first: body.first, last: body.last, scrolling: !!body.scrolling });
    state.followers = body.followers;
  }

  /** Follower: its view now, or null (a 404 ends it: the presentation ended). */
  async function fetchView() {
    if (state.ended || !extra.follower) return null;
    const response = await fetch(url(`/api/lab-presentations/${state.code}/followers/${extra.follower}`), { cache: 'no-store' });
    if (response.status === 404) { ended(); return null; }
    if (!response.ok) return null;
    const body = await response.json();
    view(body);
    return body.run === extra.run ? body.lab : null;
  }

  function leave() {
    if (state.role === 'presenter') core.stopPresenting({ keepalive: true });
    if (state.role === 'follower' && extra.follower && !state.ended) {
      fetch(url(`/api/lab-presentations/${state.code}/followers/${extra.follower}`), { method: 'DELETE', keepalive: true }).catch(() => {});
    }
  }

  /** A follower's own input on `scroller` (a lane) stops following. */
  function watchOwnInput(scroller) {
    const own = core.watchOwnInput(scroller);
    scroller.addEventListener('keydown', (event) => { if (SCROLL_KEYS.has(event.key)) own(); });
  }

  core.following(
    () => { if (state.following) { state.following = false; render(); } },
    () => { state.following = true; render(); if (extra.last && follower) follower.move(extra.last); },
  );
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && state.role === 'follower' && state.following) { state.following = false; render(); }
  });
  if (button) {
    button.addEventListener('click', async () => {
      if (state.role === 'presenter') { core.stopPresenting(); return; }
      const error = await startPresenting();
      if (error) say(`Could not present the lab: ${error}`);
    });
  }
  render();

  return {
    startPresenting, newRun, onPresentation: core.onPresentation, follow, fetchView, leave, watchOwnInput,
    get isFollower() { return state.role === 'follower'; },
    get asksToPresent() { return core.params.has('present'); },
    get state() {
      const { role, code, following, followers, ended: over, link } = state;
      const { run, last, moves, movedAt } = extra;
      return { role, code, following, followers, ended: over, link, run, last, moves, movedAt };
    },
  };
}
