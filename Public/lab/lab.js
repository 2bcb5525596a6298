// The lab page: starts a lab (POST /api/labs) with the lanes and network chosen in the form, lays
// its lanes side by side in one scroller, and sends every scroll's reports to each lane's viewer
// (all the lanes' events travel on the page's one event stream). The scroller is watched by the list's
// own viewport (lab-viewport.js), so a lane's viewer hears what a list tab's hears for the same scroll. Every lane's stops are timed here,
// on the page's clock (stops.js). No lane works before the first report (the first scroll, or a
// trace's first step): a trace on a lab that has worked already starts a cold one, so its verdict does
// not depend on how long the person read first. Its figures are frozen at its end (what the lanes do
// after is shown apart). The scripted traces (lab-player.js) drive that same scroller; "Run again"
// ends the lab and starts a cold one. The lab can be presented, and a follower's page shows the presenter's run (lab-presenting.js).

import { config, url } from '../config.js';
import { createLane } from './lanes.js';
import { createLabViewport } from './lab-viewport.js';
import { laneFigures, showLive, showSummary } from './summary.js';
import { createLabPlayer } from './lab-player.js';
import { createStopClock } from './stops.js';
import { createLabPresenting } from './lab-presenting.js';
import { exposeLab } from './lab-probe.js';
import { followPresenter } from './lab-follower.js';

const { rowHeight } = config;
const form = document.getElementById('lab-setup');
const status = document.getElementById('lab-status');
const lanesRoot = document.getElementById('lanes');
const summaryTable = document.querySelector('#summary tbody');
const traceButtons = [...document.querySelectorAll('[data-trace]')];

// Every image of a long run has its entry (the default keeps 250).
performance.setResourceTimingBufferSize(100000);

let lab = null;
/** The id of the last lab this page ran: its next run carries a presentation on from it. */
let lastLabId = null;
const say = (text) => { status.textContent = text; };
const presenting = createLabPresenting({
  bar: document.getElementById('lab-presentation'), button: document.getElementById('present'), lab: () => lab, say,
});

/** Sends `payload` to every lane's viewer (the first one is what starts the lanes); a stop's starts
 * every lane's clock. */
function report(current, payload) {
  current.reported = true;
  current.lanes.forEach((lane) => lane.report(payload));
  if (!payload.scrolling && payload.first != null) stopped(current, { first: payload.first, last: payload.last });
}

/** The lab's settings as the form has them: the POST /api/labs body. */
function settings() {
  const data = new FormData(form);
  const prefetch = Number(data.get('prefetch')) || 0;
  const lanes = data.getAll('lane').map((strategy) => (strategy === 'prefetch' ? { strategy, prefetch } : { strategy }));
  return { lanes, latencyMs: Number(data.get('latencyMs')), bandwidth: Number(data.get('bandwidth')) };
}

/** Ends the running lab, if any (at once on the server: its transfers are aborted). */
function endLab({ keepalive = false } = {}) {
  if (!lab) return;
  const ended = lab;
  lab = null;
  clearInterval(ended.ticker);
  clearInterval(ended.drawer);
  ended.lanes.forEach((lane) => lane.close());
  // A follower's run is the presenter's: only its own page ends it.
  if (ended.id) fetch(url(`/api/labs/${ended.id}`), { method: 'DELETE', keepalive }).catch(() => {});
}

/** Starts a cold lab with the form's settings and shows its lanes; returns it (null if it did not start). */
async function startLab() {
  endLab();
  delete summaryTable.closest('section').dataset.ready;
  say('Starting the lab…');
  lanesRoot.replaceChildren();
  summaryTable.replaceChildren();
  let response;
  try {
    response = await fetch(url('/api/labs'), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(settings()),
    });
  } catch (error) {
    say('The server cannot be reached: ' + error.message);
    return null;
  }
  const body = await response.json().catch(() => ({}));
  if (response.status === 503) {
    const seconds = Number(response.headers.get('Retry-After')) || 60;
    say(`The lab is busy (${body.error || 'too many labs run now'}). Try again in about ${seconds} s.`);
    return null;
  }
  if (!response.ok) {
    say(`The lab did not start: ${body.error || response.status}`);
    return null;
  }
  const previous = lastLabId;
  const current = build(body);
  presenting.newRun(previous, current.id);
  return current;
}

/** Lays out the lab `created` (the 201 body, or a follower's view of the presenter's run, `follower`),
 * its lanes waiting for the first report; returns it. */
function build(created, { follower = false } = {}) {
  const heads = document.createElement('div');
  heads.className = 'lane-heads';
  const scroller = document.createElement('div');
  scroller.className = 'lane-scroller';
  scroller.tabIndex = 0;
  scroller.setAttribute('role', 'region');
  scroller.setAttribute('aria-label', 'The lanes: one scroll moves them all (arrows, Page Up, Page Down, Home, End)');
  const lists = document.createElement('div');
  lists.className = 'lane-lists';
  scroller.append(lists);
  const current = {
    id: follower ? null : created.lab, follower, rows: created.photos, rowHeight, scroller, lanes: [], waiters: new Set(),
    // The rows that have been on screen in this lab: the browser lane's bytes on any other were wasted.
    seen: new Set(),
    // Whether a report was sent (the lanes have worked); the figures at the end of the last trace.
    reported: false, frozen: null,
  };
  const onChange = () => { current.clock.changed(); current.waiters.forEach((wake) => wake()); };
  const onGone = (reason) => {
    if (lab !== current) return;
    // A follower's watchers go with the presenter's run: its view says what comes next.
    if (follower) refresh(current);
    else say(`The lab ended on the server (${reason}). Run it again.`);
  };
  const { onPresentation } = presenting;
  current.lanes = created.lanes.map((spec) => createLane(spec, { rows: created.photos, rowHeight, run: created.lab, onChange, onGone, onPresentation }));
  current.clock = createStopClock(current.lanes.map((lane) => lane.model));
  heads.style.setProperty('--lanes', String(current.lanes.length));
  lists.style.setProperty('--lanes', String(current.lanes.length));
  current.lanes.forEach((lane) => { heads.append(lane.head); lists.append(lane.list); });
  lanesRoot.replaceChildren(heads, scroller);
  lab = current;
  if (!follower) lastLabId = current.id;
  // A follower reports nothing: its lanes watch the presenter's, whose scroll moves them.
  const onReport = follower ? () => {} : (payload) => report(current, payload);
  current.viewport = createLabViewport({ scroller, rows: created.photos, rowHeight, onReport });
  if (follower) presenting.watchOwnInput(scroller);
  current.ticker = setInterval(() => refresh(current), 1000);
  current.drawer = setInterval(() => {
    if (!document.hidden) current.lanes.forEach((lane) => lane.timeline && lane.timeline.draw());
  }, 200);
  if (!follower) say(`Lab running: ${current.lanes.map((lane) => lane.name).join(', ')}; ${created.photos} photos, ` +
    `${created.latencyMs} ms latency, ${(created.bandwidth / 1e6).toFixed(1)} MB/s per transfer. ` +
    'Every lane waits, cold, for your first scroll or a trace.');
  return current;
}

/** Scrolling stopped on `rows` (every lane's viewer heard them): every lane's clock starts. */
function stopped(current, rows) {
  current.clock.stop(rows);
  for (let i = rows.first; i <= rows.last; i += 1) current.seen.add(i);
  current.waiters.forEach((wake) => wake());
}

/** Every lane's figures now (one GET /api/labs/ID for the server lanes), and the summary of the lab's
 * last trace the server keeps (a follower's: the presenter's), or null. */
async function figures(current) {
  const response = current.follower ? null : await fetch(url(`/api/labs/${current.id}`), { cache: 'no-store' });
  const report = current.follower ? await presenting.fetchView() : (response.ok ? await response.json() : null);
  if (!report || lab !== current) return null;
  return { lanes: current.lanes.map((lane, index) => laneFigures(lane, report.lanes[index], current.seen)), summary: report.summary || null };
}

async function refresh(current) {
  const now = await figures(current).catch(() => null);
  if (!now || lab !== current) return;
  if (current.follower && now.summary) showPresentersSummary(current, now.summary);
  const all = now.lanes;
  current.lanes.forEach((lane, index) => showLive(lane, current.frozen ? current.frozen[index] : all[index],
    current.frozen ? all[index] : null));
}

/** A follower shows the presenter's summary, once the presenter's trace ended: its table, and the lanes'
 * figures frozen as the presenter's are (what the lanes did since shown apart, as on the presenter's page). */
function showPresentersSummary(current, summary) {
  const key = JSON.stringify(summary);
  if (current.summaryShown === key) return;
  current.summaryShown = key;
  current.frozen = summary.lanes;
  showSummary(summaryTable, current.lanes, summary.lanes);
  summaryTable.closest('section').dataset.ready = 'true';
  say(`The presenter's trace ${summary.trace} is done: its summary is below.`);
}

const player = createLabPlayer({ lab: () => lab, startLab, figures, say, status, summaryTable, traceButtons });
exposeLab({ lab: () => lab, playing: player.playing, presenting });
form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!player.playing()) startLab();
});
traceButtons.forEach((button) => button.addEventListener('click', () => player.play(button.dataset.trace)));
// A page that leaves ends its lab at once (the server would notice within seconds anyway).
addEventListener('pagehide', () => { presenting.leave(); endLab({ keepalive: true }); });
if (presenting.isFollower) followPresenter({ presenting, form, summary: summaryTable, rowHeight, lab: () => lab, build, endLab, stopped, say });
else startLab().then(() => presenting.asksToPresent && presenting.startPresenting());
