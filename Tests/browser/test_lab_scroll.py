"""The lab's lanes scroll on the list's path (issue 39): the lab's scroller is watched by the list's own
viewport and scroll-end modules, so a lab lane's viewer is told what a list tab's viewer is told for the
same scroll of a person. The same wheel, through Chromium's input pipeline (CDP Input.dispatchMouseEvent),
over a list tab and over a lab lane of the same height: the server takes the same reports, in the same
order (a run of notches that goes more than a screen is a flick: that it began, that it went past a
screen, with the rows then, and its stop; a reader's lone notches are each a stop, nothing else)."""
from __future__ import annotations

import pytest

import gestures
from test_lab import open_lab, wait_for
from test_page import Page
from test_reading import RECORD_REPORTS

WHEEL_STILL_MS = 220  # Public/scroll-end.js: a gap this long ends a run of notches

# Each wheel event the scroller got, on the page's clock: the pace the browser delivered.
WATCH_WHEEL = """
    window.__wheels = [];
    window.__wheeled = 0;
    document.querySelector(arguments[0]).addEventListener('wheel', (e) => {
        window.__wheels.push(performance.now());
        window.__wheeled += e.deltaY;
    }, { passive: true });
"""

# The movements: a flick (ten notches 100 ms apart, well past a screen and two rows) and a reader's three notches.
MOVEMENTS = {
    "flick": {"notches": 10, "interval_s": 0.1, "catch_up": True},
    "reading": {"notches": 3, "interval_s": 0.6, "catch_up": False},
}
ATTEMPTS = 5


class PaceMissed(Exception):
    """The browser got the notches at another pace than the movement meant (a loaded machine)."""


def reports(driver) -> list[dict]:
    return driver.execute_script("""
        return window.__reports.map((r) => ({ scrolling: r.body.scrolling, first: r.body.first ?? null,
                                              last: r.body.last ?? null, status: r.status }));
    """)


def scroll(driver, selector: str, movement: str) -> list[dict]:
    """Turns the wheel over `selector` as `movement` says, from the top, and returns the reports the
    server took for it (each answered), once the scroll's stop has been taken."""
    driver.execute_script(RECORD_REPORTS)
    driver.execute_script(WATCH_WHEEL, selector)
    x, y = driver.execute_script("""
        const r = document.querySelector(arguments[0]).getBoundingClientRect();
        return [r.left + r.width / 2, (Math.max(r.top, 0) + Math.min(r.bottom, innerHeight)) / 2];
    """, selector)
    spec = MOVEMENTS[movement]
    gestures.wheel(driver, x, y, notches=spec["notches"], interval_s=spec["interval_s"], catch_up=spec["catch_up"])
    # CDP acknowledges a wheel notch before the page's main thread has dispatched it (the listener is
    # passive): wait until the page has seen every notch's pixels, however Chromium grouped them.
    notched = spec["notches"] * 120
    wait_for(driver, lambda d: d.execute_script("return window.__wheeled") >= notched, 10,
             f"the page never saw the {movement}'s {spec['notches']} notches")
    wheels = driver.execute_script("return window.__wheels")
    gaps = [b - a for a, b in zip(wheels, wheels[1:])]
    # (Chromium may hand two quick notches to the page as one wheel event: the gaps are what matter.)
    if (movement == "flick" and max(gaps) >= WHEEL_STILL_MS * 0.8) \
            or (movement == "reading" and (len(wheels) != spec["notches"] or min(gaps) <= WHEEL_STILL_MS * 1.5)):
        raise PaceMissed(f"{selector} {movement}: notches {len(wheels)}, gaps {[round(g) for g in gaps]} ms")
    stops = 1 if movement == "flick" else spec["notches"]

    def taken(d):
        got = reports(d)
        done = [r for r in got if r["scrolling"] is False]
        return got if len(done) >= stops and got[-1]["scrolling"] is False and all(r["status"] for r in got) else None

    return wait_for(driver, taken, 30, f"the {movement}'s stop was never taken by the server")


def lab_of_height(driver, server, height: int) -> None:
    """A cold lab of one visible lane, its scroller `height` px tall and on screen."""
    open_lab(driver, server, lanes=("visible",))
    driver.execute_script("""
        const s = document.querySelector('.lane-scroller');
        s.style.boxSizing = 'content-box';
        s.style.height = arguments[0] + 'px';
        s.scrollIntoView({ block: 'end' });
    """, height)
    wait_for(driver, lambda d: d.execute_script("return document.querySelector('.lane-scroller').clientHeight") == height,
             10, "the lanes' scroller never took the list's height")


@pytest.mark.parametrize("movement", list(MOVEMENTS))
def test_a_lab_lane_is_told_what_a_list_tab_is_told_for_the_same_wheel(start_server, make_driver, movement):
    missed = []
    for number in range(ATTEMPTS):
        server = start_server(f"lab-scroll-{movement}-{number}", photo_count=300, latency_ms=20, bandwidth=20_000_000)
        try:
            driver = make_driver()
            gestures.laptop(driver)
            # Given a list tab, settled at its top, its introduction dismissed before (it folds at the first
            # scroll otherwise, and the list grows under the wheel)
            page = Page(driver, server).open()
            page.js("localStorage.setItem('classicPhotos.introDismissed', '1')")
            page.open()
            height = page.js("return document.getElementById('list').clientHeight")
            # When a person turns the wheel over it
            listed = scroll(driver, "#list", movement)
            # And the same over a lab lane of the same height
            lab_of_height(driver, server, height)
            laned = scroll(driver, ".lane-scroller", movement)
        except PaceMissed as error:
            missed.append(str(error))
            continue
        finally:
            server.stop()
        # Then the lane's server took the list tab's reports, in the same order, each taken (204; a list
        # tab's stop that asks for its rows' thumbnails has them on its answer, 200)
        assert {r["status"] for r in listed + laned} <= {200, 204} and {r["status"] for r in laned} == {204}, (listed, laned)
        shape = lambda got: [(r["scrolling"], r["first"] is not None) for r in got]  # noqa: E731
        assert shape(laned) == shape(listed), f"list {listed}\nlab {laned}"
        # stopping on the same rows
        stops = lambda got: [(r["first"], r["last"]) for r in got if r["scrolling"] is False]  # noqa: E731
        assert stops(laned) == stops(listed), f"list {listed}\nlab {laned}"
        if movement == "flick":
            # a flick: its beginning, that it went past a screen (with the rows then), its stop
            assert shape(laned) == [(True, False), (True, True), (False, True)], laned
        else:
            # a reader's notches: each a stop, nothing suspended
            assert shape(laned) == [(False, True)] * MOVEMENTS[movement]["notches"], laned
        return
    pytest.fail(f"the machine never delivered the movement at its pace in {ATTEMPTS} tries: {missed}")
