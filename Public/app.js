// ClassicPhotos Live: the page's entry point. Makes the store, the views and the connections, and
// wires them together; each module does one thing (see its header). `window.classicPhotos` is a
// read-only view of the page for the browser tests and for the curious.

import './first-screen.js';
import { config, rowFromURL, strategyFromURL } from './config.js';
import { createStore } from './store.js';
import { createEventStream } from './events.js';
import { createViewerRenewal } from './viewer-renewal.js';
import { attachVisibility } from './visibility.js';
import { createReporter } from './reporter.js';
import { createViewport } from './viewport.js';
import { createImages } from './images.js';
import { createRowFactory } from './rows.js';
import { createListView } from './list.js';
import { attachKeyboard } from './keyboard.js';
import { attachRowActions } from './row-actions.js';
import { createPhotoViewer } from './photo-viewer.js';
import { attachStatus } from './status.js';
import { attachPanel } from './panel.js';
import { attachTips } from './tips.js';
import { createTimelineModel } from './timeline-model.js';
import { createTimelineView } from './timeline.js';
import { attachStrategyControl } from './strategy.js';
import { attachIntro } from './intro.js';
import { attachSheet } from './sheet.js';
import { attachExplain } from './explain.js';
import { attachPresenting } from './list-presenting.js';
import { attachToolbar } from './toolbar.js';
import { exposePage } from './page-view.js';

const $ = (id) => document.getElementById(id);
const { rowHeight } = config;

const store = createStore({
  viewer: config.viewer,
  requestedStrategy: strategyFromURL(),
  serverStrategy: { strategy: config.serverStrategy, prefetch: config.serverPrefetch },
});
const list = $('list');

let renewal = null;
let presenting = null;
const reporter = createReporter({
  store,
  // Held while a new viewer id is on its way, and while this page follows a presenter.
  isBlocked: () => (!!renewal && renewal.renewing) || (!!presenting && presenting.following),
  onUnknownViewer: (why) => renewal.renewViewer(why),
  // A stop's rows start with its report: their final thumbnails come on its answer, one request.
  thumbnails: (first, last) => images && images.stopAsk(first, last),
  onAnswer: (ask, response) => images.readBatch(ask, response),
});
const viewport = createViewport({ store, list, reporter, rowHeight, showsScroll: () => !!presenting && presenting.presenting });

let listView = null;
let images = null;
images = createImages({ store, onLoaded: (index) => listView && listView.refreshRow(index) });
listView = createListView({
  store, list, rowsEl: $('rows'), messageEl: $('list-message'),
  rows: createRowFactory($('row-template')), images, viewport, rowHeight,
});

presenting = attachPresenting({
  store, list, button: $('present-button'), bar: $('presentation-bar'), viewport, reporter, rowHeight,
  // The list started cold: the images this page loaded are not the server's any more.
  onColdStart: () => { images.forget(); listView.render(); viewport.reportVisible(); },
});
// About, Present and Lab: one Tab stop, the arrows between them.
attachToolbar($('header-controls'));

const photoViewer = createPhotoViewer({ store, dialog: $('viewer'), returnTo: list });
const act = attachRowActions({ store, list, rowsEl: $('rows'), photoViewer, onRetried: () => viewport.reportVisible() });
attachKeyboard({ store, list, viewport, rowHeight, act });
attachStatus({ store, root: document });

const tips = attachTips({ root: document.body, tip: $('tooltip') });
const timelineModel = createTimelineModel();
const timeline = createTimelineView({
  root: $('timeline'),
  controls: {
    pause: $('timeline-pause'),
    scrub: $('timeline-scrub'),
    filter: document.querySelectorAll('input[name="timeline-filter"]'),
    title: $('timeline-title'),
  },
  model: timelineModel,
  store,
  tips,
  onSelect: (index) => {
    store.setActiveRow(index);
    viewport.reveal(index, 'top');
    list.focus({ preventScroll: true });
  },
});
const panel = attachPanel({ store, root: document, timeline });
attachStrategyControl({ store, select: $('strategy-select'), prefetch: $('prefetch-input'), note: $('strategy-note') });
attachIntro({
  intro: $('intro'),
  list,
  about: $('about-button'),
  afterDismiss: list,
  strategyLink: (strategy) => {
    const link = new URL(location.href);
    link.searchParams.set('strategy', strategy);
    link.searchParams.delete('prefetch');
    link.searchParams.delete('row');
    return link.href;
  },
});
attachSheet({ details: $('panel-details'), onToggle: () => timeline.schedule(true) });
attachExplain({ button: $('explain'), root: $('panel') });
// The skip link: to the list, with the keyboard's focus (a fragment alone would only scroll).
$('skip-link').addEventListener('click', (event) => {
  event.preventDefault();
  list.focus({ preventScroll: true });
});

let restored = false;
const stream = createEventStream({
  store,
  onGone: (why) => renewal.renewViewer(why),
  onOperation: (op) => timelineModel.add(op),
  onPresentation: (data) => presenting.onPresentation(data),
  onSnapshot: () => {
    timelineModel.closeOpen(false);
    const row = restored ? 0 : rowFromURL(); // a shared link's scroll position
    restored = true;
    if (row > 0) {
      viewport.jumpTo(row * rowHeight);
      store.setActiveRow(viewport.visibleRange().first);
    }
    // With the layout of the next frame (reading it now would lay the page out twice); a hidden
    // tab has no frames, and reports after a moment instead.
    let reported = false;
    const report = () => { if (!reported) { reported = true; viewport.reportVisible(); } };
    requestAnimationFrame(report);
    setTimeout(report, 100);
    presenting.startIfAsked();
  },
});
renewal = createViewerRenewal({
  store,
  stream,
  onRenewed: () => {
    timelineModel.closeOpen(true);
    presenting.renewed();
    reporter.send();
  },
});
// A hidden tab has no rows on screen: its viewer says so, and reports its rows again when shown.
attachVisibility({ reporter, onShown: () => viewport.reportVisible() });
// When scrolling stopped, when queue counts came, and when they came saying the queues run (page
// clock, the latest 50 of each): how far the panel's figures trail the scroll, for the browser tests.
store.subscribe((kind) => {
  if (kind === 'strategy' && store.state.requested) viewport.reportVisible();
  if (kind === 'viewer') {
    $('viewer-id').textContent = store.state.viewer;
    document.body.dataset.viewer = store.state.viewer;
  }
});
exposePage({ store, viewport, stream, panel, reporter, listView, timelineModel, timeline, images, photoViewer, presenting });

stream.connect();
// The panel's cards wait for this frame (index.mustache's data-later), so the first one lays out the list alone.
requestAnimationFrame(() => $('panel').removeAttribute('data-later'));
