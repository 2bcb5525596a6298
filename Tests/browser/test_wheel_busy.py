"""A steady wheel spin on a busy machine is one scroll: 25 notches of 120 px, ten a second, through
Chromium's own input pipeline (gestures.py), on a quiet machine and beside a CPU hog of two processes
that spin for the whole movement and its stop. Unlike test_person_input, a notch the loaded machine
delivers late is not a try made again: it is the case under test. A late notch must not end the spin:
the server starts nothing for the rows the spin only passes and cancels nothing, by its own figures
(each photo's state, the downloads cancelled), and the rows where it stops load.

The backlog test makes the busy machine's delivery on purpose (each notch reaching the browser later
than the one before, as the loaded runs showed), so the rule is checked the same way every run; a try
on which the machine stalled on its own beyond that is made again.

WHEEL_BUSY_RUNS runs each (1 unless set; 20 for the issue's figure); every one must pass."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import gestures
from test_page import ROW_HEIGHT
from test_person_input import ATTEMPTS, PaceMissed, open_first_visit, wait_idle, worked

RUNS = int(os.environ.get("WHEEL_BUSY_RUNS", "1"))
HOG = "while True: pass"
# A notch of the backlog made on purpose that reaches the page this much later than made (ms): the
# machine stalled on its own (a jump in lateness past WHEEL_STILL_MS cannot be told from a stop).
STALL_MS = 150
# When each notch was made (its time stamp) and when the page handled it.
STAMPS = """
    window.__stamps = [];
    document.getElementById('list').addEventListener('wheel',
        (event) => window.__stamps.push([event.timeStamp, performance.now()]), { passive: true });
"""


class Hog:
    """Two processes that spin the CPU (two cores: the browser, the server and this test share them)."""

    def __init__(self, count: int):
        self.processes = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(count)]

    def stop(self):
        for process in self.processes:
            process.kill()
            process.wait()


def spin(start_server, driver, name: str, hog: bool, delivered: list[float] | None = None):
    """One spin on a fresh server (cold: every row worked on after the first screen is the spin's)."""
    server = start_server(name, photo_count=300, latency_ms=100, bandwidth=2_000_000)
    hogs = Hog(2 if hog else 0)  # beside the browser from the page's opening on
    try:
        page = open_first_visit(driver, server)
        x, y = gestures.center_of(driver, "#list")
        page.js(STAMPS)
        before, worked_before = server.stats(), worked(server)
        gestures.wheel(driver, x, y, 25, 0.100, delivered=delivered)
        page.wait_reported(timeout=60)
        first, last = page.visible_range()
        page.wait_filtered(first, last, allow_failed=True)
        after = wait_idle(driver, server)
        hogs.stop()
        hogs = None
        notches = page.js("return window.__stamps")  # [made, handled] a notch (ms, the page's clock)
        start = notches[0][0]
        if delivered:
            # The machine's own stall on top of the backlog made on purpose: another movement.
            extra = max((handled - made) - (delivered[n] - n * 0.100) * 1000 for n, (made, handled) in enumerate(notches))
            if extra > STALL_MS:
                raise PaceMissed(f"a notch reached the page {extra:.0f} ms later than the backlog made it")
        gaps = [(round(made - start), round(handled - made)) for made, handled in notches]
        stops = [round(r["sentAt"] - start) for r in page.js("return window.__reports") if r["body"].get("scrolling") is False]
        screen = last - first + 1
        # The list went the spin's 3000 px (rows of ROW_HEIGHT px).
        assert first >= 3000 // ROW_HEIGHT - 2, f"the spin stopped at row {first}; notches (made, late) {gaps} ms"
        new = worked(server) - worked_before
        passed = sorted(i for i in new if i < first - 2 * screen or i > last + 2 * screen)
        cancelled = after["downloads"]["cancelled"] - before["downloads"]["cancelled"]
        reports = [(r["body"].get("scrolling"), r["body"].get("first")) for r in page.js("return window.__reports")]
        assert not passed and cancelled == 0, (
            f"rows only passed worked on: {passed}; cancelled {cancelled} (stop at {first}...{last}); "
            f"notches (made, late) {gaps} ms; stops sent at {stops}; reports {reports}")
        assert set(range(first, last + 1)) <= new | worked_before
    finally:
        if hogs:
            hogs.stop()
        server.stop()


@pytest.mark.parametrize("hog", [False, True], ids=["quiet", "hog"])
def test_a_wheel_spin_of_25_notches_passes_its_rows_untouched(start_server, driver, hog):
    failed = []
    for number in range(RUNS):
        try:
            spin(start_server, driver, f"wheel-busy-{'hog' if hog else 'quiet'}-{number}", hog)
        except AssertionError as error:
            failed.append(f"run {number + 1}: {str(error).splitlines()[0]}")
    assert not failed, f"{len(failed)} of {RUNS} runs failed:\n" + "\n".join(failed)


def test_a_wheel_spin_delivered_ever_later_is_one_scroll(start_server, driver):
    """A busy machine's backlog, made on purpose: the notches, made 100 ms apart, reach the browser
    ever further apart, 100, 150, 200 ms, then 250 ms (each 150 ms later than the one before), further
    apart than a run's WHEEL_STILL_MS. Their time stamps and their growing lateness say one spin. (A
    backlog that jumps at once by more than WHEEL_STILL_MS is not told from a stop: see the notes.)"""
    gaps = [0.0, 0.100, 0.150, 0.200] + [0.250] * 21
    delivered = [sum(gaps[: n + 1]) for n in range(25)]
    for number in range(RUNS):
        missed = []
        for attempt in range(ATTEMPTS):  # a try the machine stalled on its own is made again
            try:
                spin(start_server, driver, f"wheel-backlog-{number}-{attempt}", hog=False, delivered=delivered)
                break
            except PaceMissed as error:
                missed.append(str(error))
        else:
            pytest.fail(f"the machine stalled on its own in every try: {missed}")
