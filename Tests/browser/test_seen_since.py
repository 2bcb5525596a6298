"""The waste figures say why they go down: work done ahead for rows nobody had seen leaves "Done for rows
no viewer has seen yet" when a viewer comes to those rows, and the server counts that part (/api/stats
`seenSince*`, the page's queues event `seenSince`), shown under the figures and in the page's cost line.
At every reading, what is not seen yet + what was seen since (all the work ever done ahead) never goes down."""
from __future__ import annotations

from test_page import ROW_HEIGHT, Page, wait_for


def ahead_ever(stats: dict) -> tuple[int, int]:
    """All the work ever done ahead of any viewer: bytes and downloads."""
    return (stats["wastedBytes"] + stats["seenSinceBytes"], stats["wastedDownloads"] + stats["seenSinceDownloads"])


def test_a_waste_figure_that_goes_down_says_why(start_server, driver):
    # Given a page whose prefetch has downloaded rows below its screen that nobody has seen yet
    server = start_server("seen-since", photo_count=200, latency_ms=50, bandwidth=4_000_000)
    page = Page(driver, server).open()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)

    def settled_ahead(_):
        stats = server.stats()
        return (stats["wastedBytes"] > 0 and stats["downloads"]["executing"] == 0
                and stats["downloads"]["pending"] == 0) and stats
    before = wait_for(driver, settled_ahead, 60, f"no work was done ahead: {server.stats()}")
    # (The first screen's own rows, started with the page before its first report, count as seen since already.)
    readings = [before]

    # When the person moves a screen down and stops there: the prefetched rows are on screen now
    page.scroll_to([(last - first) * ROW_HEIGHT])
    page.wait_reported()

    # Then the server says how much work done ahead went to rows seen since, and nothing is lost at any reading
    def explained(_):
        stats = server.stats()
        readings.append(stats)
        return stats["seenSinceBytes"] > before["seenSinceBytes"] and stats
    after = wait_for(driver, explained, 30, f"the server never counted the rows seen since: {server.stats()}")
    for earlier, later in zip(readings, readings[1:]):
        assert ahead_ever(later) >= ahead_ever(earlier), (earlier, later)
        drop = earlier["wastedBytes"] - later["wastedBytes"]
        if drop > 0:
            assert later["seenSinceBytes"] - earlier["seenSinceBytes"] >= drop, (earlier, later)
    print(f"before: ahead {before['wastedBytes']} B; after: ahead {after['wastedBytes']} B, "
          f"seen since {after['seenSinceBytes']} B ({after['seenSinceDownloads']} downloads)")

    # And the panel says it under the figures, and the page's cost line says its own part
    def panel(d):
        return d.execute_script("""
            const el = document.getElementById('stat-seen-since');
            return { hidden: el.hidden, text: el.textContent, cost: document.getElementById('page-cost').textContent,
                     own: classicPhotos.queues && classicPhotos.queues.seenSince };
        """)
    shown = wait_for(driver, lambda d: (lambda p: not p["hidden"] and "seen since" in p["text"]
                                        and "until this page came to those rows" in p["cost"] and p)(panel(d)),
                     15, f"the panel never said why: {panel(driver)}")
    assert shown["own"]["bytes"] > 0, shown
    print(f"panel: {shown['text']} | cost: {shown['cost']}")
