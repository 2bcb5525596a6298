// This tab's strategy: the URL's `?strategy=eager|visible|prefetch&prefetch=N`, and a control that
// sets it. The choice goes to the server with every viewport report; the note under the control
// says what the server applies (the `strategy` and `prefetch` fields of its queues events).

import { STRATEGIES, updateURL } from './config.js';

// Short enough that the note is at most three lines (the space app.css keeps for it).
const DESCRIPTIONS = {
  eager: 'every row, in list order, whatever is on screen',
  visible: 'only the rows on screen (the tutorial’s way)',
  prefetch: 'the rows on screen, then rows ahead as you read (none after a flick)',
};

export const describeStrategy = (s) => s.strategy + (s.strategy === 'prefetch' ? ' ±' + s.prefetch : '');

/** Wires the <select> `select`, the number input `prefetch` and the `note` to the store. */
export function attachStrategyControl({ store, select, prefetch, note }) {
  function show() {
    const current = store.state.requested || store.effectiveStrategy();
    select.value = current.strategy;
    prefetch.value = String(current.prefetch);
    prefetch.disabled = current.strategy !== 'prefetch';
    const { requested, applied, serverStrategy } = store.state;
    let text;
    if (applied) {
      const same = !requested || (requested.strategy === applied.strategy && requested.prefetch === applied.prefetch);
      text = same
        ? 'The server schedules this page’s work by ' + describeStrategy(applied) + ': ' + DESCRIPTIONS[applied.strategy] + '.'
        : 'Asked for ' + describeStrategy(requested) + '; the server still runs ' + describeStrategy(applied) + '.';
    } else if (requested) {
      text = 'Asked for ' + describeStrategy(requested) + '; the server applies it with this page’s next report.';
    } else {
      text = 'The server’s setting: ' + describeStrategy(serverStrategy) + ', ' + DESCRIPTIONS[serverStrategy.strategy] + '.';
    }
    note.textContent = text;
    note.dataset.applied = applied ? 'true' : 'false';
  }

  function choose() {
    const strategy = STRATEGIES.includes(select.value) ? select.value : 'prefetch';
    const rows = Math.max(0, Math.min(50, parseInt(prefetch.value, 10) || 0));
    const requested = { strategy, prefetch: strategy === 'prefetch' ? rows : 0 };
    updateURL({ strategy, prefetch: strategy === 'prefetch' ? rows : null });
    store.requestStrategy(requested);
  }

  select.addEventListener('change', choose);
  prefetch.addEventListener('change', choose);
  store.subscribe((kind) => { if (kind === 'strategy' || kind === 'viewer') show(); });
  show();
}
