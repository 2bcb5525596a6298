"""A scroll's end is reported as soon as it is known: a key's jump at once, a press in the scrollbar's
track once its jump is still (the button still down), a wheel once it has been still long enough for a
next notch (`scrollend` comes after every notch), and a script's step-by-step scroll (whose end nothing
says) once, after it settles."""
from __future__ import annotations

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
        list.addEventListener(type, () => {
            const r = classicPhotos.reports;
            window.__seen.push({ type, at: performance.now(), top: list.scrollTop,
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


def test_a_press_in_the_scrollbar_track_is_a_stop_while_the_button_is_still_down(server, driver):
    # Given the page at rest at the top, on a laptop's screen, its reports recorded
    gestures.laptop(driver)
    page = open_without_intro(Page(driver, server))
    page.js(RECORD_REPORTS)
    page.js(WATCH, ["pointerdown", "scroll"])

    # When a person presses in the scrollbar's track (a shift-press: the thumb jumps there) and holds
    # the button down, as a click does for about 100 ms
    at = gestures.track_click(driver, "#list", 0.6, hold=True)
    try:
        # Then the rows it jumped to are reported as a stop with the button still down: what the
        # press shows is on screen from the press, and a person's click need not end first
        wait_for(driver, lambda _: stops(page), 10, "no stop was reported while the button was down")
        first, last = page.visible_range()
        assert first > 100, (first, last)
        # And asked for at the press itself, a frame before the jump's scroll event: the page knows
        # where Chromium puts the thumb, so the rows it lands on are the ones asked for
        pressed = next(e for e in page.js("return window.__seen") if e["type"] == "pointerdown")
        asked = [r for r in asked_when(page, pressed) if r["scrolling"] is False]
        assert [(r["first"], r["last"]) for r in asked] == [(first, last)], (asked, first, last)
        # And once it has landed, no other stop is asked for: the guess was the jump
        wait_for(driver, lambda _: any(e["type"] == "scroll" for e in page.js("return window.__seen")), 10,
                 "the jump's scroll event never came")
        landed = next(e for e in page.js("return window.__seen") if e["type"] == "scroll")
        asked = [r for r in asked_when(page, landed) if r["scrolling"] is False]
        assert [(r["first"], r["last"]) for r in asked] == [(first, last)], (asked, first, last)
    finally:
        gestures.release(driver, at)


def test_a_plain_press_in_the_track_reports_the_page_it_will_show_at_the_press(server, driver):
    # Given the page at rest at the top, on a laptop's screen, its reports recorded
    gestures.laptop(driver)
    page = open_without_intro(Page(driver, server))
    page.js(RECORD_REPORTS)
    page.js(WATCH, ["pointerdown"])
    height = page.js("return document.getElementById('list').clientHeight")

    # When a person clicks in the scrollbar's track below the thumb (Chromium pages down, animated
    # over about 100 ms)
    gestures.track_page(driver, "#list")

    # Then it moves a page (7/8 of the list's height)
    wait_for(driver, lambda _: abs(page.js("return document.getElementById('list').scrollTop") - height * 0.875) < 1,
             10, "the list never moved a page")
    wait_for(driver, lambda _: not page.js("return classicPhotos.scrolling"), 10, "the page's scroll never ended")
    first, last = page.visible_range()
    # And the rows that page shows were reported as a stop at the press, before it moved
    pressed = next(e for e in page.js("return window.__seen") if e["type"] == "pointerdown")
    assert [(r["first"], r["last"], r["scrolling"]) for r in asked_when(page, pressed)] == [(first, last, False)]
    # And nothing else: its scroll was not told (its destination was known: nothing to suspend), and
    # its stop found them said
    reports = page.js("return window.__reports")
    assert [(r["body"].get("first"), r["body"].get("last"), r["body"]["scrolling"]) for r in reports] == [(first, last, False)], reports


# A shift-press on the list's scrollbar that Chromium itself never sees (dispatched to the page): the
# page guesses where it lands; the test then moves the list where that browser would have.
SHIFT_PRESS = """
    const [fraction] = arguments, list = document.getElementById('list'), rect = list.getBoundingClientRect();
    const at = { clientX: rect.right - 4, clientY: rect.top + rect.height * fraction, pointerType: 'mouse',
                 button: 0, buttons: 1, shiftKey: true, bubbles: true };
    list.dispatchEvent(new PointerEvent('pointerdown', at));
    return at;
"""


def test_a_browser_whose_jump_lands_elsewhere_is_reported_where_it_landed(server, driver):
    # Given the page at rest at the top, on a laptop's screen, its reports recorded
    gestures.laptop(driver)
    page = open_without_intro(Page(driver, server))
    page.js(RECORD_REPORTS)

    def jump(fraction: float, rows_lower: int) -> tuple[int, int]:
        """A shift-press at `fraction` of the list's height, the list then landing `rows_lower` rows
        below where Chromium's scrollbar would have put it; the rows on screen once it landed."""
        page.js(SHIFT_PRESS, fraction)
        guessed = stops(page)[-1]["body"]["first"] if stops(page) else 0
        page.js("const l = document.getElementById('list'); l.scrollTop = arguments[0] * arguments[1];"
                "window.dispatchEvent(new PointerEvent('pointerup', { pointerType: 'mouse' }));",
                guessed + rows_lower, ROW_HEIGHT)
        wait_for(driver, lambda _: page.visible_range()[0] == guessed + rows_lower, 10, "the list never landed")
        page.wait_reported()
        return page.visible_range()

    # When a press in its scrollbar's track lands ten rows below where the page's guess put it (a
    # browser whose scrollbar is not Chromium's)
    rows = jump(0.6, 10)

    # Then the guess was reported at the press, and the rows it landed on once it had
    asked = [(r["body"]["first"], r["body"]["last"]) for r in stops(page)]
    assert len(asked) == 2 and asked[0][0] + 10 == rows[0] and asked[1] == rows, (asked, rows)

    # And the page guesses no more: the next press asks for nothing before it lands
    page.js(SHIFT_PRESS, 0.3)
    assert len(stops(page)) == 2, stops(page)
    page.js("document.getElementById('list').scrollTop = arguments[0];"
            "window.dispatchEvent(new PointerEvent('pointerup', { pointerType: 'mouse' }));", 40 * ROW_HEIGHT)
    wait_for(driver, lambda _: page.visible_range()[0] == 40, 10, "the list never landed")
    page.wait_reported()
    assert [(r["body"]["first"], r["body"]["last"]) for r in stops(page)][2:] == [page.visible_range()]


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
    assert reports[0]["sentAt"] - wheel["at"] >= WHEEL_STILL_MS - 1, (reports, seen)


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
