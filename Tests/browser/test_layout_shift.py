"""Nothing on the page moves by itself: the cumulative layout shift over a load and a scroll, on a
first visit (introduction shown, nothing cached) and a return visit, at desktop and phone sizes; and
on a phone the introduction's action and at least six rows are in view at once."""
from __future__ import annotations

import pytest

from test_layout import set_viewport
from test_page import ROW_HEIGHT, Page, after_frames, screens, wait_for

# The web's own measure (PerformanceObserver 'layout-shift', shifts not caused by input), from the
# first moment of each document: each shift with the elements it moved.
CLS_PROBE = r"""
(() => {
  const shifts = [];
  window.__layoutShifts = shifts;
  const name = (node) => !node ? '?' : node.id ? '#' + node.id
    : node.nodeName.toLowerCase() + (typeof node.className === 'string' && node.className ? '.' + node.className.split(' ')[0] : '');
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.hadRecentInput) continue;
      shifts.push({ value: entry.value, at: Math.round(entry.startTime), sources: (entry.sources || []).map((s) =>
        name(s.node) + ' y ' + Math.round(s.previousRect.y) + '->' + Math.round(s.currentRect.y)
        + ' h ' + Math.round(s.previousRect.height) + '->' + Math.round(s.currentRect.height)) });
    }
  }).observe({ type: 'layout-shift', buffered: true });
})();
"""
MAX_CLS = 0.02


@pytest.fixture(scope="module")
def cold_server(start_server):
    """A server of this module's own: its disk cache starts empty, so a first visit is a cold one."""
    server = start_server("layout-shift", photo_count=300, latency_ms=100, bandwidth=2_000_000)
    yield server
    server.stop()


def load_and_scroll(page: Page):
    """A visit: the load until the first screen is sepia and the panel is filled, then a scroll of
    a few screens and its rows turning sepia."""
    page.open()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    wait_for(page.driver, lambda d: d.execute_script(
        "return !!classicPhotos.stats && !document.getElementById('panel').hasAttribute('data-later')"), 15,
        "the panel never got the server's totals")
    page.scroll_to(screens(0, 12 * ROW_HEIGHT, 6))
    page.wait_reported()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    after_frames(page.driver)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_nothing_shifts_on_a_first_or_a_return_visit(cold_server, driver, size):
    set_viewport(driver, size)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CLS_PROBE})
    page = Page(driver, cold_server)
    for visit in ("first", "return"):
        load_and_scroll(page)
        intro = page.js("return document.querySelector('#intro .intro-head').checkVisibility()")
        assert intro == (visit == "first"), f"the introduction on a {visit} visit: shown {intro}"
        shifts = page.js("return window.__layoutShifts")
        total = sum(shift["value"] for shift in shifts)
        print(f"{size}, {visit} visit: cumulative layout shift {total:.4f} over {len(shifts)} shifts: {shifts}")
        assert total <= MAX_CLS, f"{size}, {visit} visit: cumulative layout shift {total:.3f}: {shifts}"
        if visit == "first":
            driver.find_element("css selector", "[data-action='dismiss-intro']").click()


def test_on_a_phone_the_introductions_action_and_six_rows_are_in_view(server, driver):
    set_viewport(driver, "phone")
    page = Page(driver, server).open()
    seen = page.js("""
        const intro = document.querySelector('#intro .intro-head');
        const button = intro.querySelector('[data-action="dismiss-intro"]').getBoundingClientRect();
        const hit = document.elementFromPoint(button.left + button.width / 2, button.top + button.height / 2);
        const list = document.getElementById('list').getBoundingClientRect();
        const bottom = Math.min(list.bottom, innerHeight);
        const rows = [...document.querySelectorAll('#list .row')].filter((r) => !r.hidden)
            .map((r) => r.getBoundingClientRect()).filter((r) => r.top >= list.top - 0.5 && r.bottom <= bottom + 0.5);
        return { shown: intro.checkVisibility(), scrollsInside: intro.scrollHeight > intro.clientHeight + 1,
                 button: [button.top, button.bottom, button.left, button.right, button.height],
                 onTop: !!hit && hit.dataset.action === 'dismiss-intro', rows: rows.length, height: innerHeight, width: innerWidth };
    """)
    assert seen["shown"], seen
    top, bottom, left, right, height = seen["button"]
    assert 0 <= top and bottom <= seen["height"] and 0 <= left and right <= seen["width"], f"'Got it' is off screen: {seen}"
    assert seen["onTop"], f"'Got it' is covered: {seen}"
    assert height >= 24, f"'Got it' is too small a target: {seen}"
    assert not seen["scrollsInside"], f"the introduction scrolls inside itself: {seen}"
    assert seen["rows"] >= 6, f"only {seen['rows']} whole rows in view beside the introduction: {seen}"
