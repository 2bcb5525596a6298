"""Reading ahead: the page reports its rows during a slow scroll, not only once it settles."""
from __future__ import annotations

from test_page import Page, wait_for

RECORD_REPORTS = """
    // Every viewport report the page sends from now on: its body, when it was sent, and its answer.
    window.__reports = [];
    const nativeFetch = window.fetch;
    window.fetch = function (input, init) {
        const promise = nativeFetch.apply(this, arguments);
        if (String(input).includes('/api/viewport')) {
            const report = { body: JSON.parse(init.body), sentAt: performance.now(), status: null };
            window.__reports.push(report);
            promise.then((response) => { report.status = response.status; }, () => { report.status = 0; });
        }
        return promise;
    };
"""

SLOW_SCROLL = """
    // Half a screen down in small steps 40 ms apart (one gesture: the page waits 150 ms for the end).
    const [steps, step, done] = arguments;
    const list = document.getElementById('list');
    let n = 0;
    const move = () => {
        list.scrollTop += step;
        n += 1;
        if (n < steps) { setTimeout(move, 40); return; }
        done(performance.now());
    };
    move();
"""


def test_a_slow_scroll_reports_its_rows_while_it_scrolls(server, driver):
    page = Page(driver, server).open()
    first, last = page.visible_range()
    page.js(RECORD_REPORTS)

    # When the reader scrolls half a screen slowly (about 0.75 screens a second)
    steps, step = 12, max(1, (last - first + 1) * 80 // 2 // 12)
    scroll_ended = driver.execute_async_script(SLOW_SCROLL, steps, step)
    page.wait_reported()

    # Then rows were reported while the scroll went on, and the server took them
    reports = page.js("return window.__reports")
    during = [r for r in reports if r["body"]["scrolling"] and r["body"].get("first") is not None
              and r["sentAt"] < scroll_ended]
    assert during, f"no report with rows was sent during the scroll: {reports}"
    assert all(isinstance(r["body"]["first"], int) and r["body"]["first"] <= r["body"]["last"] for r in during)
    wait_for(driver, lambda d: all(r["status"] is not None for r in d.execute_script("return window.__reports")),
             30, "a viewport report was never answered")
    statuses = {r["status"] for r in page.js("return window.__reports")}
    assert statuses == {204}, statuses
    # And the last one, once the scroll settled, names the rows on screen
    final = page.js("return window.__reports")[-1]["body"]
    assert final["scrolling"] is False and (final["first"], final["last"]) == page.visible_range()
