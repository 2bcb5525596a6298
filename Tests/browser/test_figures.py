"""Every figure on the panel agrees with the others and with the timeline, each shown from one
source; the suspended badge and the queue figures follow a scroll's stop within 100 ms without
moving anything; and the viewer count follows a closed tab within 2 s."""
from __future__ import annotations

import re
import time

import pytest

from test_layout import set_viewport
from test_page import ROW_HEIGHT, Page, after_frames, screens, wait_for

FOLLOW_MS = 100
VIEWER_GONE_S = 2.0


@pytest.fixture(scope="module")
def own_server(start_server):
    """A server of this module's own, so its viewer count is this module's tabs only, on a slow
    origin, so a scroll leaves work queued and running."""
    server = start_server("figures", photo_count=300, latency_ms=300, bandwidth=400_000)
    yield server
    server.stop()


def number(text: str) -> int:
    return int(re.sub(r"[^\d]", "", text) or 0)


def test_every_figure_agrees_with_its_source_and_the_timeline(own_server, driver):
    page = Page(driver, own_server).open()
    # Rows on screen start downloads beyond the prefetch permits: a jump far down starts a screenful.
    page.scroll_to([150 * ROW_HEIGHT])
    page.wait_reported()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    # The server's figures come on its ticks, the timeline's bars on each operation's event: once a tick
    # has carried what the last operations did (two filters at once, at the very end), they agree.
    wait_for(driver, lambda d: d.execute_script("""
        const s = classicPhotos.stats, used = classicPhotos.timeline.tracksUsed;
        return !!s && used.download <= s.downloads.mostExecuting && used.filtration <= s.filtrations.mostExecuting;"""),
        10, "the server's most-at-once figures never caught up with the timeline's bars")
    after_frames(driver)
    shown = page.js("""
        const text = (id) => document.getElementById(id).textContent;
        return { stats: classicPhotos.stats, timeline: classicPhotos.timeline, concurrency: text('stat-concurrency'),
                 hits: text('stat-cache-hits'), cells: Object.fromEntries([...document.querySelectorAll('#panel td[id]')].map((td) => [td.id, td.textContent])),
                 panel: document.getElementById('panel').innerText,
                 tracks: [...document.querySelectorAll('#timeline .tl-track:not(.queued)')].map((e) => e.textContent),
                 ftTip: document.getElementById('tip-ft-pending').textContent };
    """)
    stats, timeline = shown["stats"], shown["timeline"]
    # "Most at once" is the server's one figure (its queues' most running at once since it started), and
    # the timeline has a track for each of them (or for each configured, if more); no bar drawn outside them.
    downloads, filters = (number(part) for part in shown["concurrency"].split("·"))
    assert (downloads, filters) == (stats["downloads"]["mostExecuting"], stats["filtrations"]["mostExecuting"]), shown
    assert "since the server started" in shown["concurrency"], shown["concurrency"]
    tracks = (max(downloads, stats["maxConcurrentDownloads"]), max(filters, stats["maxConcurrentFiltrations"]))
    assert tracks == (timeline["tracks"]["download"], timeline["tracks"]["filtration"]), shown
    assert timeline["tracksUsed"]["download"] <= downloads and timeline["tracksUsed"]["filtration"] <= filters, shown
    assert timeline["tracksUsed"]["download"] > stats["maxConcurrentDownloads"], \
        f"a screenful should have run beyond the {stats['maxConcurrentDownloads']} prefetch permits: {shown}"
    labelled = max(number(label.split("–")[-1].split(" ")[-1]) for label in shown["tracks"] if label.startswith("Download"))
    assert labelled == tracks[0], shown["tracks"]
    # Each total cell is the server's figure; the cache figure says what it counts, with no
    # "misses" that would contradict the downloads made.
    for queue, prefix in (("downloads", "dl"), ("filtrations", "ft")):
        # (The cancelled column counts those cancelled while running; those cancelled before they started are apart.)
        for cell, field in (("started", "started"), ("finished", "finished"), ("cancelled", "cancelledRunning"),
                            ("failed", "failed"), ("executing", "executing"), ("pending", "pending"),
                            ("cancelled-queued", "cancelledQueued")):
            assert number(shown["cells"][f"stat-{prefix}-{cell}"]) == stats[queue][field], (queue, field, shown)
    assert number(shown["hits"]) == stats["cacheHits"] and "images" in shown["hits"], shown
    assert "misses" not in shown["panel"].lower(), shown["panel"]
    # The filter queue's tip counts photos still downloading as what they are.
    assert "download" in shown["ftTip"] and "to finish" in shown["ftTip"], shown["ftTip"]


BADGE_PROBE = """
    // Page-clock times at which the download queue's card turned suspended or not, and its size each time.
    const card = document.getElementById('dl-queue');
    window.__badge = [];
    new MutationObserver(() => {
        const box = card.getBoundingClientRect();
        window.__badge.push({ at: performance.now(), on: card.classList.contains('is-suspended'),
                              height: box.height, width: box.width,
                              panelHeight: document.querySelector('#panel .card').getBoundingClientRect().height });
    }).observe(card, { attributes: true, attributeFilter: ['class'] });
"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_badge_and_queue_figures_follow_a_scroll_stop_without_moving(own_server, driver, size):
    """Three flicks and stops. The badge goes in the same task as the page's stop (its report
    resumes the queues); the server's queue figures, resumed, come with the answer to the stop's
    report (sent as the report is handled, not at the next tick), so they trail the stop by one
    round trip: printed, about 20-80 ms on loopback; asserted against the report's own answer,
    which the same load slows alike. Nothing changes size."""
    set_viewport(driver, size)
    page = Page(driver, own_server).open()
    if not page.js("return document.getElementById('panel-details').open"):
        driver.find_element("css selector", "#panel-details > summary").click()
    card = page.js("const b = document.getElementById('dl-queue').getBoundingClientRect(); return [b.height, b.width]")
    page.js(BADGE_PROBE)
    figures_ms, after_answer_ms = [], []
    for flick in range(3):
        seen = page.js("return window.__badge.length")
        start = page.js("return document.getElementById('list').scrollTop")
        # A flick: the server suspends this viewer's queues while it lasts.
        page.scroll_to(screens(start, start + 60 * ROW_HEIGHT, 6), interval_ms=40)
        wait_for(driver, lambda d: d.execute_script("return window.__badge.slice(arguments[0]).some((b) => b.on)", seen),
                 10, f"the badge never showed while flicking (flick {flick + 1})")
        page.wait_reported()
        answered = page.js("return classicPhotos.reports.lastAcknowledgedAt")
        wait_for(driver, lambda d: d.execute_script(
            "return classicPhotos.timings.resumed.some((t) => t >= classicPhotos.timings.scrollStops.at(-1))"),
            10, "the queues never said they resumed after the stop")
        timings = page.js("return classicPhotos.timings")
        assert timings["badgeAtStop"][-1] is False, f"the badge still showed as the page stopped (flick {flick + 1})"
        stop = timings["scrollStops"][-1]
        resumed = next(at for at in timings["resumed"] if at >= stop)
        figures_ms.append(resumed - stop)
        after_answer_ms.append(resumed - answered)
    print(f"{size}: the resumed queue figures came {[round(ms) for ms in figures_ms]} ms after the stops, "
          f"{[round(ms) for ms in after_answer_ms]} ms after the stop report's answer")
    assert max(after_answer_ms) <= FOLLOW_MS, \
        f"the queue figures came {after_answer_ms} ms after the stop report's answer: not with it"
    # The card kept its size through every change, and so did the card around it.
    badge = page.js("return window.__badge")
    sizes = {(round(b["height"], 1), round(b["width"], 1)) for b in badge}
    assert sizes == {(round(card[0], 1), round(card[1], 1))}, f"the queue card changed size: {sizes}, before {card}"
    assert len({round(b["panelHeight"], 1) for b in badge}) == 1, badge


def viewers_shown(page: Page) -> int:
    return number(page.js("return document.getElementById('stat-viewers').textContent"))


def test_the_viewer_count_follows_a_closed_tab_within_two_seconds(own_server, driver):
    page = Page(driver, own_server).open()
    first = driver.current_window_handle
    wait_for(driver, lambda d: viewers_shown(page) >= 1, 10, "the panel never counted this tab")
    alone = viewers_shown(page)
    driver.switch_to.new_window("tab")
    Page(driver, own_server).open()
    second = driver.current_window_handle
    driver.switch_to.window(first)
    wait_for(driver, lambda d: viewers_shown(page) == alone + 1, 10, "the panel never counted the second tab")
    driver.switch_to.window(second)
    driver.close()
    closed = time.monotonic()
    driver.switch_to.window(first)
    wait_for(driver, lambda d: viewers_shown(page) == alone, VIEWER_GONE_S + 5,
             "the panel still counts the closed tab")
    took = time.monotonic() - closed
    print(f"the viewer count followed the closed tab after {took:.2f} s")
    assert took <= VIEWER_GONE_S, f"the viewer count followed the closed tab after {took:.1f} s"
