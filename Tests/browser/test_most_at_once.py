""""Most at once" is one figure: the server's queues' most operations running at once since it started
(/api/stats `mostExecuting`), read by every tab. Two tabs of one server say the same, a tab opened after
the busy moment too (each tab's own timeline used to decide: the first said 10 downloads, a later one 4)."""
from __future__ import annotations

import re

from test_page import ROW_HEIGHT, Page, wait_for


def number(text: str) -> int:
    return int(re.sub(r"[^\d]", "", text) or 0)


def most_shown(driver) -> tuple[int, int, str]:
    text = driver.execute_script("return document.getElementById('stat-concurrency').textContent")
    if "·" not in text:
        return -1, -1, text
    downloads, filters = (number(part) for part in text.split("·"))
    return downloads, filters, text


def most_on_server(server) -> tuple[int, int]:
    stats = server.stats()
    return stats["downloads"]["mostExecuting"], stats["filtrations"]["mostExecuting"]


def test_two_tabs_of_one_server_say_the_same_most_at_once(start_server, driver):
    # Given a server on a slow origin, and a first tab whose jump far down starts a screenful of
    # downloads at once (rows on screen go beyond the few prefetch permits)
    server = start_server("most-at-once", photo_count=300, latency_ms=300, bandwidth=400_000)
    first_tab = Page(driver, server).open()
    first = driver.current_window_handle
    first_tab.scroll_to([150 * ROW_HEIGHT])
    first_tab.wait_reported()
    top, bottom = first_tab.visible_range()
    first_tab.wait_filtered(top, bottom, allow_failed=True)
    configured = server.stats()["maxConcurrentDownloads"]
    downloads, filters = most_on_server(server)
    assert downloads > configured, f"the jump should have run more than the {configured} prefetch permits at once"

    # When a second tab opens after that busy moment (it saw none of it), at the top of the list
    driver.switch_to.new_window("tab")
    Page(driver, server).open()
    second = driver.current_window_handle

    # Then both tabs say the server's figure, and say what it counts
    def agree(_):
        expected = most_on_server(server)
        shown = {}
        for handle in (first, second):
            driver.switch_to.window(handle)
            shown[handle] = most_shown(driver)
        return all(s[:2] == expected for s in shown.values()) and (expected, shown)

    expected, shown = wait_for(driver, agree, 20, "the tabs never both showed the server's most at once: "
                               f"{most_on_server(server)}")
    print(f"most at once: server {expected}, tabs {[s[2] for s in shown.values()]}")
    assert expected[0] >= downloads
    for text in (s[2] for s in shown.values()):
        assert "since the server started" in text, text
    # And the second tab's timeline has a track for each of them
    tracks = driver.execute_script("return classicPhotos.timeline.tracks")
    assert tracks["download"] >= expected[0], tracks
    driver.close()
    driver.switch_to.window(first)
