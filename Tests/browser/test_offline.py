"""The server gone (stopped): rows that come into view say they wait for the server, rather than
claiming a sepia photo over an empty placeholder; rows already showing their photo keep it."""
from __future__ import annotations

from test_operations import wait_until_filtered
from test_page import ROW_HEIGHT, Page, after_frames, screens, wait_for

WAITING = "Waiting for the server"


def test_offline_rows_say_they_wait_for_the_server(start_server, driver):
    server = start_server("offline", photo_count=300, latency_ms=20, bandwidth=20_000_000)
    page = Page(driver, server).open()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    # Rows further down made sepia for another viewer: this page knows their state, not their images.
    wait_until_filtered(server, range(40, 52))
    wait_for(driver, lambda d: d.execute_script(
        "return [...Array(12).keys()].every((i) => ['filtered', 'failed'].includes(classicPhotos.rowState(40 + i)))"),
        30, "the page never heard that rows 40-51 are sepia")

    server.stop()
    wait_for(driver, lambda d: d.execute_script("return classicPhotos.connection") != "open", 30,
             "the page never noticed the server had gone")
    page.scroll_to(screens(0, 40 * ROW_HEIGHT, 4))
    wait_for(driver, lambda d: not d.execute_script("return classicPhotos.scrolling"), 10, "the scroll never ended")
    after_frames(driver)
    first, last = page.visible_range()
    rows = page.rows(first, last)
    print([(r["index"], r["state"], r["status"]) for r in rows])
    unsettled = [r for r in rows if r["state"] != "failed" and not (r["src"] or "").endswith("/thumbnail")]
    assert unsettled, rows
    assert all(r["status"] == WAITING for r in unsettled), [(r["index"], r["status"]) for r in unsettled]
    assert not [r for r in rows if r["status"].startswith("Sepia") and r["naturalWidth"] == 0], rows
    # Back at the top, the rows that showed their photos still do.
    page.scroll_to([0])
    wait_for(driver, lambda d: not d.execute_script("return classicPhotos.scrolling"), 10, "the scroll never ended")
    after_frames(driver)
    top = page.rows(*page.visible_range())
    assert any(r["state"] == "filtered" and r["status"].startswith("Sepia") and r["naturalWidth"] > 0 for r in top), top
