"""A first visit on a laptop (1366x768), as a new user makes it: the introduction folds to one line at
the first scroll (or after a first look) without moving what is under the pointer, so at least six whole
rows show; the panel's timeline and its legend are on screen without scrolling the panel; Page Down moves
a screenful; End and Home work after the wheel alone; a click on a row's text gives the list the focus,
while its image (or Enter) opens the photo. A phone's first visit shows seven rows beside the intro."""
from __future__ import annotations

import gestures
from test_layout_shift import CLS_PROBE, MAX_CLS
from test_page import ROW_HEIGHT, Page, after_frames, wait_for
from test_reading import RECORD_REPORTS

WHOLE_ROWS = """
    const list = document.getElementById('list').getBoundingClientRect();
    const bottom = Math.min(list.bottom, innerHeight);
    return [...document.querySelectorAll('#list .row')].filter((r) => !r.hidden)
        .map((r) => r.getBoundingClientRect()).filter((r) => r.top >= list.top - 0.5 && r.bottom <= bottom + 0.5).length;
"""

# Whole on screen, and inside the panel's box when it is in the panel (not cut by the panel's own scroll).
ON_SCREEN = """
    const element = document.querySelector(arguments[0]), r = element.getBoundingClientRect();
    const panel = element.closest('#panel'), box = panel ? panel.getBoundingClientRect() : { top: 0, bottom: innerHeight };
    return r.height > 0 && r.top >= Math.max(0, box.top) && r.bottom <= Math.min(innerHeight, box.bottom)
        && r.left >= 0 && r.right <= innerWidth;
"""


def first_visit(driver, server, phone: bool = False) -> Page:
    (gestures.phone if phone else gestures.laptop)(driver)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CLS_PROBE})
    return Page(driver, server).open()


def intro_state(page: Page) -> str:
    return page.js("return document.documentElement.dataset.intro || 'open'")


def test_a_laptops_first_visit_folds_the_introduction_at_the_first_wheel_and_shows_six_rows(server, driver):
    page = first_visit(driver, server)
    assert intro_state(page) == "open"
    assert page.js("return document.querySelector('#intro .intro-body').checkVisibility()")
    wait_for(driver, lambda d: not d.execute_script("return document.getElementById('panel').hasAttribute('data-later')"),
             15, "the panel never showed its cards")
    # The panel's timeline and its legend are on screen, the panel not scrolled
    assert page.js("return document.getElementById('panel').scrollTop") == 0
    for selector in ("#timeline", ".legend"):
        assert page.js(ON_SCREEN, selector), f"{selector} is not on screen at 1366x768"

    # When the visitor turns the wheel over the list
    x, y = gestures.center_of(driver, "#list")
    gestures.wheel(driver, x, y, 1, 0)
    page.wait_reported()
    after_frames(driver)

    # Then the introduction is one line, at least six whole rows show, and nothing shifted
    assert intro_state(page) == "brief"
    line = page.js("const r = document.querySelector('#intro .intro-head').getBoundingClientRect(); return r.height")
    assert line <= 48, f"the folded introduction is {line} px tall"
    rows = page.js(WHOLE_ROWS)
    assert rows >= 6, f"only {rows} whole rows at 1366x768"
    shifts = page.js("return window.__layoutShifts")
    total = sum(s["value"] for s in shifts)
    print(f"1366x768 first visit, load and the first notch: layout shift {total:.4f}, {rows} whole rows, {shifts}")
    assert total <= MAX_CLS, f"layout shift {total:.3f}: {shifts}"


# At each change of the list's height, seen by a ResizeObserver made after the page's (observers are
# told in the order they were made): the height, and what the page had asked of the reporter by then.
WATCH_RESIZE = """
    window.__resized = [];
    const list = document.getElementById('list');
    new ResizeObserver(() => {
        const r = classicPhotos.reports;
        window.__resized.push({ height: list.clientHeight, pending: r.pending, sent: window.__reports.length });
    }).observe(list);
"""


def test_a_first_visits_jump_asks_for_the_rows_its_folding_introduction_uncovers_at_once(server, driver):
    # Given a first visit, the introduction open, the page's reports and the list's heights recorded
    page = first_visit(driver, server)
    page.js(RECORD_REPORTS)
    page.js(WATCH_RESIZE)
    wait_for(driver, lambda _: page.js("return window.__resized.length") > 0, 10, "the list was never laid out")
    before = page.js("return window.__resized")[-1]["height"]

    # When the visitor's first scroll is a press in the scrollbar's track, held as a click holds it
    at = gestures.track_click(driver, "#list", 0.6, hold=True)
    try:
        # Then the introduction folds and the list grows, uncovering rows the jump's stop did not show
        wait_for(driver, lambda _: any(r["height"] > before for r in page.js("return window.__resized")), 10,
                 "the introduction never folded")
        grown = next(r for r in page.js("return window.__resized") if r["height"] > before)
        first, last = page.visible_range()
        # And by the time the list's new height is known, the rows it shows are asked for: not a
        # quiet while later (a window's resize waits for its end; this one is no drag)
        reports = page.js("return window.__reports")
        asked = grown["pending"] or (reports[grown["sent"] - 1]["body"] if grown["sent"] else None)
        assert intro_state(page) == "brief"
        assert asked and asked["scrolling"] is False and (asked["first"], asked["last"]) == (first, last), (asked, grown)
        assert any(r["body"]["scrolling"] is False and r["body"]["last"] < last for r in reports), \
            f"the jump's own stop already showed every row: nothing was uncovered ({reports})"
    finally:
        gestures.release(driver, at)


def test_after_a_first_look_the_introduction_folds_by_itself_without_a_shift(server, driver):
    page = first_visit(driver, server)
    # (the first look is shortened here: its timer is run now)
    page.js("document.documentElement.dataset.intro = 'brief'")
    after_frames(driver)
    assert page.js(WHOLE_ROWS) >= 6
    # "More" unfolds it again
    driver.find_element("css selector", "#intro [data-action='more-intro']").click()
    assert intro_state(page) == "open"


def test_keys_after_the_wheel_alone_and_a_click_on_a_rows_text(server, driver):
    page = first_visit(driver, server)
    x, y = gestures.center_of(driver, "#list")
    gestures.wheel(driver, x, y, 3, 0.05)
    page.wait_reported()
    assert page.js("return document.activeElement === document.body")

    # End and Home go to the list although nothing had the focus
    gestures.hold_key(driver, "End", 0, delay_s=0)
    page.wait_reported()
    assert page.visible_range()[1] == page.count - 1
    assert page.js("return document.activeElement.id") == "list"
    gestures.hold_key(driver, "Home", 0, delay_s=0)
    page.wait_reported()
    assert page.visible_range()[0] == 0

    # Page Down moves a screenful of whole rows
    whole = page.js(WHOLE_ROWS)
    top = page.js("return document.getElementById('list').scrollTop")
    gestures.hold_key(driver, "PageDown", 0, delay_s=0)
    page.wait_reported()
    moved = page.js("return document.getElementById('list').scrollTop") - top
    assert moved >= (whole - 1) * ROW_HEIGHT, f"Page Down moved {moved} px with {whole} whole rows on screen"

    # A click on a row's text focuses the list and makes the row current; the photo does not open
    page.js("document.activeElement.blur()")
    first, last = page.visible_range()
    rows = page.wait_filtered(first, last, allow_failed=True)
    index = next(r["index"] for r in rows if r["state"] == "filtered" and r["index"] != page.js("return classicPhotos.activeRow"))
    driver.find_element("css selector", f"#list .row[data-index='{index}'] .name").click()
    assert page.js("return document.activeElement.id") == "list"
    assert page.js("return classicPhotos.activeRow") == index
    assert not page.js("return document.getElementById('viewer').open")
    # and Enter opens the photo of that row
    gestures.hold_key(driver, "Enter", 0, delay_s=0)
    wait_for(driver, lambda d: d.execute_script("return document.getElementById('viewer').open"), 10,
             "Enter on the row the click selected did not open its photo")


def test_a_phones_first_visit_shows_seven_rows_beside_the_introduction(server, driver):
    page = first_visit(driver, server, phone=True)
    assert intro_state(page) == "open"
    assert page.js("return document.querySelector('#intro .intro-body').checkVisibility()")
    rows = page.js(WHOLE_ROWS)
    assert rows >= 7, f"only {rows} whole rows on a phone's first visit"
