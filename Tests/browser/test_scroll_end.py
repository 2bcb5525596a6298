"""A scroll's end is reported as soon as it is known, from the events every browser gives: a key's jump
at once, a press on the scrollbar's jump in its first scroll event (the button still down), its page or
drag at the release, a wheel once it has been still long enough for a
next notch (`scrollend` comes after every notch), and a script's step-by-step scroll (whose end nothing
says) once, after it settles."""
from __future__ import annotations

import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin

import gestures
from test_layout import open_without_intro
from test_page import ROW_HEIGHT, Page, wait_for
from test_reading import RECORD_REPORTS

WHEEL_STILL_MS = 220  # Public/scroll-end.js

# What the page had asked of the reporter when an event reached a listener added after the page's own.
WATCH = """
    window.__seen = [];
    const list = document.getElementById('list');
    for (const type of arguments[0]) {
        list.addEventListener(type, (event) => {
            const r = classicPhotos.reports;
            window.__seen.push({ type, at: performance.now(), made: event.timeStamp, top: list.scrollTop,
                                 pending: r.pending, sent: window.__reports.length });
        });
    }
"""


def stops(page: Page) -> list[dict]:
    return [r for r in page.js("return window.__reports") if r["body"]["scrolling"] is False]


def test_a_key_jump_is_reported_while_the_key_is_handled(server, driver):
    # Given the page at rest at the top (the introduction dismissed: its first-scroll fold would grow
    # the list after the jump), the list focused, its reports recorded
    page = open_without_intro(Page(driver, server))
    page.js(RECORD_REPORTS)
    page.js(WATCH, ["keydown"])
    listing = driver.find_element("id", "list")
    page.js("arguments[0].focus()", listing)

    # When the reader presses End (the page moves the list itself: its destination is known)
    listing.send_keys(Keys.END)
    page.wait_reported()

    # Then the last rows were reported as a stop while that very key press was handled: no wait for
    # stillness, and no suspension of the viewer's work first
    seen = page.js("return window.__seen")[0]
    reports = page.js("return window.__reports")
    first, last = page.visible_range()
    assert last == page.count - 1
    asked = seen["pending"] or reports[seen["sent"] - 1]["body"]
    assert asked["scrolling"] is False and (asked["first"], asked["last"]) == (first, last), (asked, seen)
    assert not [r for r in reports if r["body"]["scrolling"]], reports


def asked_when(page: Page, seen: dict) -> list[dict]:
    """The reports sent or waiting when a watched event was heard (WATCH)."""
    reports = [r["body"] for r in page.js("return window.__reports")[:seen["sent"]]]
    return reports + ([seen["pending"]] if seen["pending"] else [])


def test_a_jump_from_the_track_is_a_stop_in_its_first_scroll_event_while_the_button_is_still_down(server, driver):
    # Given the page at rest at the top, on a laptop's screen, its reports recorded
    gestures.laptop(driver)
    page = open_without_intro(Page(driver, server))
    page.js(RECORD_REPORTS)
    page.js(WATCH, ["pointerdown", "scroll"])

    # When a person presses in the scrollbar's track (a shift-press: the thumb jumps there) and holds
    # the button down, as a click does for about 100 ms
    at = gestures.track_click(driver, "#list", 0.6, hold=True)
    try:
        # Then the rows it jumped to are reported as a stop with the button still down
        wait_for(driver, lambda _: stops(page), 10, "no stop was reported while the button was down")
        first, last = page.visible_range()
        assert first > 100, (first, last)
        # And nothing at the press (where it lands is the browser's to say), the stop in the jump's
        # first scroll event itself, and that one report only: no scroll told (it had ended)
        seen = page.js("return window.__seen")
        pressed = next(e for e in seen if e["type"] == "pointerdown")
        assert asked_when(page, pressed) == [], asked_when(page, pressed)
        landed = next(e for e in seen if e["type"] == "scroll")
        asked = [(r["first"], r["last"], r["scrolling"]) for r in asked_when(page, landed)]
        assert asked == [(first, last, False)], (asked, first, last)
    finally:
        gestures.release(driver, at)
    page.wait_reported()
    assert [(r["body"].get("first"), r["body"].get("last")) for r in page.js("return window.__reports")] == [(first, last)]


def test_a_plain_press_in_the_track_is_reported_where_its_page_lands(server, driver):
    # Given the page at rest at the top, on a laptop's screen, its reports recorded
    gestures.laptop(driver)
    page = open_without_intro(Page(driver, server))
    page.js(RECORD_REPORTS)

    # When a person clicks in the scrollbar's track below the thumb, as a click lasts (Chromium pages
    # down, animated over about 100 ms)
    gestures.track_page(driver, "#list", hold_s=0.1)

    # Then, once it has come to rest, the rows it shows were reported as one stop, and nothing else:
    # a move of less than a screen with the button down was not told as a scroll (nothing to suspend)
    wait_for(driver, lambda _: not page.js("return classicPhotos.scrolling"), 10, "the page's scroll never ended")
    page.wait_reported()
    first, last = page.visible_range()
    assert first > 0
    reports = page.js("return window.__reports")
    assert [(r["body"].get("first"), r["body"].get("last"), r["body"]["scrolling"]) for r in reports] == [(first, last, False)], reports


# A press on the list's scrollbar dispatched to the page, which Chromium never sees: any browser's
# scrollbar, whose move the test then makes.
PRESS = """
    const list = document.getElementById('list'), rect = list.getBoundingClientRect();
    list.dispatchEvent(new PointerEvent('pointerdown', { clientX: rect.right - 4, clientY: rect.top + rect.height / 2,
                                                         pointerType: 'mouse', button: 0, buttons: 1, bubbles: true }));
"""
RELEASE = "window.dispatchEvent(new PointerEvent('pointerup', { pointerType: 'mouse' }));"
MOVE = "document.getElementById('list').scrollTop = arguments[0];"
# (a press and its move in one script: the move comes within a frame of the press, as a track's own)


def test_a_press_on_any_scrollbar_is_reported_where_its_move_lands(server, driver):
    # Given the page at rest at the top, its reports recorded
    gestures.laptop(driver)
    page = open_without_intro(Page(driver, server))
    page.js(RECORD_REPORTS)
    screen = page.js("return document.getElementById('list').clientHeight")

    # When a press moves the list more than a screen at once (a jump), the button still down
    page.js(PRESS + MOVE, 50 * ROW_HEIGHT)
    # Then its stop is reported in that scroll event, where it landed
    wait_for(driver, lambda _: stops(page), 10, "the jump was not reported with the button down")
    assert [r["body"]["first"] for r in stops(page)] == [50]
    page.js(RELEASE)

    # When a press moves it less than a screen at once (a page), the button still down
    page.js(PRESS + MOVE, 50 * ROW_HEIGHT + screen // 2)
    # Then it is reported once it is still, before the release
    wait_for(driver, lambda _: len(stops(page)) == 2, 10, "the page was not reported with the button down")
    assert stops(page)[-1]["body"]["first"] == page.visible_range()[0]
    page.js(RELEASE)

    # When a press moves the list only a while later (a drag of the thumb), and holds it there
    page.js(PRESS)
    time.sleep(0.3)
    page.js(MOVE, 80 * ROW_HEIGHT)
    time.sleep(0.5)
    # Then nothing is reported while the button is down, and the release of a list standing still is its stop
    assert len(stops(page)) == 2, stops(page)
    page.js(RELEASE)
    page.wait_reported()
    assert [r["body"]["first"] for r in stops(page)][2:] == [80], stops(page)
    assert not [r for r in page.js("return window.__reports") if r["body"]["scrolling"]], page.js("return window.__reports")


def test_a_lone_wheel_notch_is_a_stop_once_the_wheel_is_still(server, driver):
    # Given the page at rest
    page = Page(driver, server).open()
    page.js(RECORD_REPORTS)
    page.js(WATCH, ["wheel", "scrollend"])

    # When the reader turns the wheel once (a real input event; Chromium scrolls and says `scrollend`
    # at once, as it does after every notch of a run)
    listing = driver.find_element("id", "list")
    ActionChains(driver).scroll_from_origin(ScrollOrigin.from_element(listing), 0, 6 * ROW_HEIGHT).perform()
    wait_for(driver, lambda d: d.execute_script(
        "return window.__seen.some((s) => s.type === 'scrollend') && window.__reports.length > 0"), 10,
        "the notch was never reported")
    page.wait_reported()

    # Then the rows where it stopped were reported once the wheel had been still for WHEEL_STILL_MS,
    # not at `scrollend` (a next notch may still come), and the notch was not told as a scroll (a
    # reader's notch suspends nothing)
    seen = page.js("return window.__seen")
    wheel = next(s for s in seen if s["type"] == "wheel")
    reports = page.js("return window.__reports")
    first, last = page.visible_range()
    assert first > 0
    assert [(r["body"]["scrolling"], r["body"]["first"], r["body"]["last"]) for r in reports] == [(False, first, last)], reports
    # (timed from when the notch was made, as the page times it: this listener runs after the page's,
    # which a loaded machine showed 2.4 ms later, a report 217.6 ms after this listener's own clock)
    assert reports[0]["sentAt"] - wheel["made"] >= WHEEL_STILL_MS - 1, (reports, seen)


def test_a_scripted_scroll_one_step_a_frame_is_one_scroll(server, driver):
    # Given the page at rest
    page = Page(driver, server).open()
    page.js(RECORD_REPORTS)

    # When a script moves the list down 60 rows, a little each frame for half a second (Chromium
    # fires `scrollend` after every step)
    driver.execute_async_script("""
        const [to, ms, done] = arguments;
        const list = document.getElementById('list');
        const from = list.scrollTop, start = performance.now();
        const step = () => {
            const t = Math.min(1, (performance.now() - start) / ms);
            list.scrollTop = Math.round(from + (to - from) * t);
            if (t < 1) requestAnimationFrame(step); else done();
        };
        requestAnimationFrame(step);
    """, 60 * ROW_HEIGHT, 500)
    page.wait_reported()

    # Then it was reported as one scroll: suspended first, and one stop, with the rows where it ended
    reports = page.js("return window.__reports")
    assert reports[0]["body"]["scrolling"] is True, reports
    assert [(r["body"]["first"], r["body"]["last"]) for r in stops(page)] == [page.visible_range()], reports
