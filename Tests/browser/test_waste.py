"""Seen has one meaning and one record: a row is seen when the page stops at it or scrolls past it at a
reading pace, never when it is only passed in a flick. The page's waste (its `queues` event) and the
server's (`stats`, `GET /api/stats`) are read from that one record, so for a page alone on its server
they are equal to the byte, after a flick past rows read ahead and a stop."""
from __future__ import annotations

import pytest

from test_page import ROW_HEIGHT, Page, wait_for

# What the page has from the server: its own queues (work, waste) and the server's totals.
SHOWN = """
    const q = classicPhotos.queues || {}, s = classicPhotos.stats || {};
    const text = (id) => document.getElementById(id).textContent;
    return { queues: q, stats: s, cost: text('page-cost'), aheadBytes: text('stat-ahead-bytes') };
"""

# A flick, driven by what the page reports: the list jumps to `arguments[0]` (more than a screen
# down, so the server judges the move a flick whenever it comes), stays there until the page has
# sent its report of the rows on screen in the scroll, then goes on to each of `arguments[1]`, 10 ms
# apart. Resolves once the last step has been drawn; the viewport reports are in `window.__reports`.
FLICK = """
    const zone = arguments[0], far = arguments[1], done = arguments[arguments.length - 1];
    const list = document.getElementById('list');
    const send = window.fetch;
    window.__reports = [];
    let step = -1;
    const next = () => {
        step += 1;
        if (step < far.length) { list.scrollTop = far[step]; setTimeout(next, 10); return; }
        requestAnimationFrame(() => requestAnimationFrame(() => done(list.scrollTop)));
    };
    window.fetch = (url, init) => {
        if (String(url).endsWith('/api/viewport')) {
            const report = JSON.parse(init.body);
            window.__reports.push(report);
            if (step < 0 && report.scrolling && report.first != null) setTimeout(next, 0);
        }
        return send(url, init);
    };
    list.scrollTop = zone;
"""


@pytest.fixture(scope="module")
def own_server(start_server):
    """A server of this module's own: the page is its only viewer, so all the work done is the page's."""
    server = start_server("waste", photo_count=300, latency_ms=100, bandwidth=2_000_000)
    yield server
    server.stop()


def idle(queues: dict) -> bool:
    return all(not (queues.get(name) or {}).get(field) for name in ("download", "filtration")
               for field in ("pending", "executing"))


def settled(page: Page, server) -> dict:
    """Waits until the server has no work queued or running and the page has heard the last of it
    (its totals and its own work are the server's bytes), and returns what the page has."""
    def done(_):
        stats = server.stats()
        busy = any(stats[queue][field] for queue in ("downloads", "filtrations") for field in ("pending", "executing"))
        shown = page.js(SHOWN)
        heard = (shown["stats"].get("bytesDownloaded") == stats["bytesDownloaded"]
                 and (shown["queues"].get("work") or {}).get("bytes") == stats["bytesDownloaded"]
                 and idle(shown["queues"]))
        return not busy and heard and (shown, stats)
    return wait_for(page.driver, done, 60, "the server's work never settled, or the page never heard of it")


def test_the_pages_waste_is_the_servers_after_a_flick_and_a_stop(own_server, driver):
    # Given the page stopped at the top, with the rows below its screen read ahead: work on rows
    # nobody has seen yet
    page = Page(driver, own_server).open()
    first, last = page.visible_range()
    shown, stats = settled(page, own_server)
    assert stats["wastedBytes"] > 0, f"nothing was read ahead of rows {first}...{last}: {stats}"
    assert shown["queues"]["waste"]["bytes"] == stats["wastedBytes"], (shown, stats)
    read_ahead = stats["wastedBytes"]
    ahead = [row for row in range(last + 1, last + 30) if page.js("return classicPhotos.rowState(arguments[0])", row) != "new"]
    assert len(ahead) >= 2, f"rows below {last} were not read ahead: {ahead}"

    # When it flicks down the list: its first report in the scroll has some of the rows read ahead
    # on screen, more than a screen from its stop; and it stops far down
    driver.execute_async_script(FLICK, (last + 2) * ROW_HEIGHT, [row * ROW_HEIGHT for row in (40, 80, 120, 150)])
    page.wait_reported()
    reports = page.js("return window.__reports")
    passed = [r for r in reports if r["scrolling"] and r.get("first") is not None]
    assert passed and passed[0]["first"] == last + 2 and passed[0]["first"] <= ahead[-1], (ahead, reports)

    # Then the rows passed in the flick are still waste, and the page shows the server's figure:
    # its own waste equals the server's to the byte, in its data and on its panel
    shown, stats = settled(page, own_server)
    waste = shown["queues"]["waste"]
    assert stats["wastedBytes"] >= read_ahead, f"rows passed in a flick counted as seen: {stats}; reports: {reports}"
    assert waste["bytes"] == stats["wastedBytes"] == shown["stats"]["wastedBytes"], (waste, stats, shown["stats"])
    assert waste["downloads"] == stats["wastedDownloads"], (waste, stats)
    assert shown["aheadBytes"] in shown["cost"], shown
