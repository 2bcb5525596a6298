// A follower's lab page (issue 37): no lab of its own, the presenter's run shown (its lanes watched,
// its figures the same for everyone) and moved where the presenter's lanes are (lab-presenting.js).

/** Follows the presentation of the page's URL: `build(created, {follower})` lays out a run, `endLab()`
 * ends the one shown, `stopped(current, rows)` starts its lanes' clocks, `say(text)` the status line. */
export function followPresenter({ presenting, form, summary, rowHeight, lab, build, endLab, stopped, say }) {
  form.hidden = true;
  say("Joining the presenter's lab…");
  presenting.follow({
    show(view) {
      endLab();
      summary.replaceChildren();
      delete summary.closest('section').dataset.ready;
      const current = build({ ...view.lab, lab: `${view.code}-${view.run}` }, { follower: true });
      say(`Following the presenter's lab: ${current.lanes.map((lane) => lane.name).join(', ')}; ${view.lab.photos} photos. `
        + "The lanes and their figures are the presenter's run, live.");
    },
    move(position) {
      const current = lab();
      if (!current || !current.follower) return;
      current.scroller.scrollTop = position.first * rowHeight;
      if (position.scrolling) return;
      // The browser lane is the web platform alone: it loads in this browser, from the presenter's first stop.
      current.lanes.filter((lane) => lane.spec.strategy === 'browser').forEach((lane) => lane.report());
      stopped(current, position);
    },
    stop() {
      const current = lab();
      if (!current) return;
      clearInterval(current.ticker);
      current.lanes.forEach((lane) => lane.close());
    },
  }).then((error) => { if (error) say(`Could not follow: ${error}`); });
}
