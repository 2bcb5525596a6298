"""The first screen's work is sized to the rows the window really shows: on a first visit at 1366x768
(the introduction open), no download starts for a row below the first screen and the read-ahead the
scheduler keeps at a stop (`ScrollMotion.readAhead`: the prefetch margin, at least half a screen), and
none is started only to be cancelled when the page's first report says what it shows."""
from __future__ import annotations

import gestures
from test_page import Page, wait_for

PREFETCH = 3  # the test server's margin (conftest's default)


def test_a_laptops_first_visit_starts_work_only_for_its_screen_and_read_ahead(start_server, driver):
    # Given a fresh server on a slow origin, and a laptop's window
    server = start_server("first-screen-work", photo_count=200, latency_ms=200, bandwidth=2_000_000)
    gestures.laptop(driver)

    # When a person opens the page for the first time
    page = Page(driver, server).open()
    first, last = page.visible_range()
    screen = last - first + 1
    read_ahead = max(PREFETCH, (screen + 1) // 2)
    page.wait_filtered(first, last, allow_failed=True)

    def settled(_):
        stats = server.stats()
        return (stats["downloads"]["executing"] == 0 and stats["downloads"]["pending"] == 0
                and stats["filtrations"]["executing"] == 0 and stats["filtrations"]["pending"] == 0) and stats
    stats = wait_for(driver, settled, 60, f"the first screen's work never settled: {server.stats()}")

    # Then every row the server worked on is on the first screen or in its read-ahead, and no download
    # was started for a row the first report did not want
    worked = [p["index"] for p in server.photos() if p["state"] != "new"]
    print(f"first screen rows {first}-{last} ({screen}), read-ahead {read_ahead}; rows worked on {worked}; "
          f"downloads {stats['downloads']}")
    assert worked and max(worked) <= last + read_ahead, (first, last, read_ahead, worked)
    assert stats["downloads"]["cancelledRunning"] == 0, stats["downloads"]
    assert stats["downloads"]["started"] <= screen + read_ahead, stats["downloads"]
