"""The scroll a person makes, through Chromium's own input pipeline (gestures.py): wheel notches, a
trackpad's momentum, a finger's fling on a phone, an arrow key held down, a drag of the scrollbar. Each is
one scroll: while it moves the page says scrolling (the server suspends; the badge shows), the server
starts nothing for the rows it only passes, nothing is cancelled because of it, and the rows where it
stops load. A reader's slow wheel (a notch every half second) suspends nothing and is read ahead of.

Each starts on a fresh server with the first screen done and nothing running (the server idle), so
anything started or cancelled during the test is the movement's doing. The input's own pace is checked
before the outcome: a loaded machine that delivered a notch late made a different movement."""
from __future__ import annotations

import pytest

import gestures
from test_page import ROW_HEIGHT, Page, wait_for
from test_reading import RECORD_REPORTS

WHEEL_STILL_MS = 220  # Public/scroll-end.js
TRACKPAD_STILL_MS = 180
TRACKPAD_QUICKEST_MS = 100
TRACKPAD_GAPS = 2

# What the page does during a movement: when the badge showed, when the list's input came.
WATCH = """
    window.__watch = { badge: [], inputs: { wheel: [], keydown: [], touchmove: [] }, deltas: [] };
    const queue = document.getElementById('dl-queue');
    new MutationObserver(() => {
        if (queue.classList.contains('is-suspended')) window.__watch.badge.push(performance.now());
    }).observe(queue, { attributes: true, attributeFilter: ['class'] });
    const list = document.getElementById('list');
    for (const type of Object.keys(window.__watch.inputs)) {
        list.addEventListener(type, () => window.__watch.inputs[type].push(performance.now()), { passive: true });
    }
    list.addEventListener('wheel', (event) => window.__watch.deltas.push(event.deltaY), { passive: true });
"""


ATTEMPTS = 3  # a movement the machine delivered at another pace is made again, on a fresh server


class PaceMissed(Exception):
    """The input reached the page at another pace than the movement meant (a loaded machine)."""


def attempt(start_server, make_driver, name: str, movement, phone: bool = False):
    """Makes `movement(server, driver, page)` for up to ATTEMPTS tries, each on a fresh server (cold:
    every row it works on is the test's doing) and a fresh window; a try whose input reached the page at
    another pace raises PaceMissed and the next one begins. Fails when none kept its pace."""
    missed = []
    for number in range(ATTEMPTS):
        server = start_server(f"person-{name}-{number}", photo_count=300, latency_ms=100, bandwidth=2_000_000)
        try:
            driver = make_driver()
            movement(server, driver, open_first_visit(driver, server, phone))
            return
        except PaceMissed as error:
            missed.append(str(error))
        finally:
            server.stop()
    pytest.fail(f"the machine never delivered the movement at its pace in {ATTEMPTS} tries: {missed}")


def idle(server) -> dict:
    stats = server.stats()
    d, f = stats["downloads"], stats["filtrations"]
    return stats if not (d["pending"] or d["executing"] or f["pending"] or f["executing"]) else None


def wait_idle(driver, server) -> dict:
    wait_for(driver, lambda _: idle(server), 60, "the server never finished its work")
    return server.stats()


def worked(server) -> set[int]:
    """Rows the server has done anything for."""
    return {i for i, photo in enumerate(server.photos()) if photo["state"] != "new"}


def open_first_visit(driver, server, phone: bool = False) -> Page:
    """A first visit at 1366x768 (a phone's 390x844 with touch), the first screen done, the server idle."""
    (gestures.phone if phone else gestures.laptop)(driver)
    page = Page(driver, server).open()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    wait_idle(driver, server)
    page.js(RECORD_REPORTS)
    page.js(WATCH)
    return page


def largest_gap(times: list[float]) -> float:
    return max((b - a for a, b in zip(times, times[1:])), default=0.0)


def wheel_split(times: list[float], deltas: list[float]) -> str | None:
    """Where Public/scroll-end.js would have ended a run of wheel events early, the same rule: a notch's
    run ends after WHEEL_STILL_MS without one; a trackpad's (precise deltas) after TRACKPAD_GAPS times its
    largest gap so far, within TRACKPAD_QUICKEST_MS...TRACKPAD_STILL_MS."""
    def trackpad_still(gap):
        return min(TRACKPAD_STILL_MS, max(TRACKPAD_QUICKEST_MS, TRACKPAD_GAPS * gap)) if gap > 0 else TRACKPAD_STILL_MS
    at, still, gap = None, 0.0, 0.0
    for number, (now, delta) in enumerate(zip(times, deltas)):
        if at is not None and now - at >= still:
            return f"wheel event {number} came {now - at:.0f} ms after the one before, past its {still:.0f} ms"
        precise = abs(delta) < 50 or delta != int(delta)
        gap = max(gap, now - at) if precise and at is not None else 0.0
        still = trackpad_still(gap) if precise else WHEEL_STILL_MS
        at = now
    return None


def check_movement(page: Page, server, before: dict, worked_before: set[int], moved_at_least: int):
    """The outcome of one movement: badge during it, one stop, nothing started for rows only passed,
    nothing cancelled, the rows where it stopped loaded."""
    driver = page.driver
    page.wait_reported()
    first, last = page.visible_range()
    assert first >= moved_at_least, f"the movement went only to row {first}"
    reports = page.js("return window.__reports")
    stops = [r for r in reports if r["body"]["scrolling"] is False]
    assert len(stops) == 1 and reports[-1] is stops[0], f"more than the one stop was reported: {reports}"
    # The badge showed while the list moved, before the stop was sent.
    badge = page.js("return window.__watch.badge")
    assert badge and badge[0] < stops[0]["sentAt"], f"the badge never showed during the movement: {badge}, {reports}"

    page.wait_filtered(first, last, allow_failed=True)
    after = wait_idle(driver, server)
    screen = last - first + 1
    new = worked(server) - worked_before
    passed = sorted(i for i in new if i < first - 2 * screen or i > last + 2 * screen)
    assert not passed, f"the server worked on rows only passed: {passed} (stop at {first}...{last})"
    assert set(range(first, last + 1)) <= new | worked_before
    cancelled = after["downloads"]["cancelled"] - before["downloads"]["cancelled"]
    assert cancelled == 0, f"{cancelled} downloads cancelled by the movement; stats {after}"


def run(page: Page, server, move, moved_at_least: int, inputs: str | None = None, still_ms: float = 0):
    before, worked_before = server.stats(), worked(server)
    move()
    if inputs == "wheel":
        split = wheel_split(page.js("return window.__watch.inputs.wheel"), page.js("return window.__watch.deltas"))
        if split:
            raise PaceMissed(split)
    elif inputs:
        times = page.js("return window.__watch.inputs[arguments[0]]", inputs)
        gap = largest_gap(times)
        if gap >= still_ms:
            raise PaceMissed(f"input {gap:.0f} ms apart")
    check_movement(page, server, before, worked_before, moved_at_least)


def test_a_run_of_wheel_notches_is_one_scroll(start_server, make_driver):
    def movement(server, driver, page):
        x, y = gestures.center_of(driver, "#list")
        # 25 notches of 120 px, one every 100 ms: 3000 px, about five screens
        run(page, server, lambda: gestures.wheel(driver, x, y, 25, 0.100), 30, "wheel", WHEEL_STILL_MS)
    attempt(start_server, make_driver, "wheel", movement)


def test_a_trackpads_momentum_is_one_scroll(start_server, make_driver):
    def movement(server, driver, page):
        x, y = gestures.center_of(driver, "#list")
        # (its first moves are whole pixels of 60, notch-like; its momentum's fractions are a trackpad's)
        run(page, server, lambda: gestures.trackpad(driver, x, y, moves=20, move=60), 18, "wheel",
            TRACKPAD_STILL_MS)
    attempt(start_server, make_driver, "trackpad", movement)


def test_a_fling_on_a_phone_is_one_scroll(start_server, make_driver):
    def movement(server, driver, page):
        x, y = gestures.center_of(driver, "#list")
        run(page, server, lambda: gestures.fling(driver, x, y + 150, 400), 20)
    attempt(start_server, make_driver, "fling", movement, phone=True)


def test_an_arrow_key_held_down_is_one_scroll(start_server, make_driver):
    def movement(server, driver, page):
        page.js("document.getElementById('list').focus()")
        # Held for two and a half seconds: 60 repeats after the first press, a row each
        run(page, server, lambda: gestures.hold_key(driver, "ArrowDown", 60), 40)
    attempt(start_server, make_driver, "key", movement)


def test_a_drag_of_the_scrollbar_is_one_scroll(start_server, make_driver):
    def movement(server, driver, page):
        run(page, server, lambda: gestures.drag_scrollbar(driver, "#list", 0.5, hold_s=0.3), 100)
    attempt(start_server, make_driver, "drag", movement)


def test_a_slow_wheel_reader_is_read_ahead_of_and_never_suspended(start_server, make_driver):
    def movement(server, driver, page):
        x, y = gestures.center_of(driver, "#list")
        suspended = page.js("return classicPhotos.suspendedSeen")
        before = server.stats()
        # Six notches half a second apart: a reader
        gestures.wheel(driver, x, y, 6, 0.5, catch_up=False)
        times = page.js("return window.__watch.inputs.wheel")
        gaps = [b - a for a, b in zip(times, times[1:])]
        if min(gaps) <= WHEEL_STILL_MS:
            raise PaceMissed(f"notches {min(gaps):.0f} ms apart")
        page.wait_reported()
        first, last = page.visible_range()
        page.wait_filtered(first, last, allow_failed=True)
        after = wait_idle(driver, server)
        # Each notch was its own stop, none told as a scroll: nothing was suspended
        reports = page.js("return window.__reports")
        assert not [r for r in reports if r["body"]["scrolling"]], reports
        assert page.js("return classicPhotos.suspendedSeen") == suspended
        assert not page.js("return window.__watch.badge")
        # and rows below the screen were read ahead
        ahead = {i for i in worked(server) if i > last}
        assert ahead, "nothing was read ahead of the reader"
        assert after["downloads"]["cancelled"] == before["downloads"]["cancelled"]
    attempt(start_server, make_driver, "reader", movement)
