"""A crash (the server killed, not stopped: no `shutdown` event) is said in the banner within seconds,
on a laptop and on a phone, under the list: it covers no row, and the rows under the reader do not move."""
from __future__ import annotations

import pytest

from test_layout import set_viewport
from test_page import Page, wait_for


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_crash_is_said_in_the_banner_without_moving_the_rows(start_server, driver, size):
    server = start_server(f"crash-{size}", photo_count=60, latency_ms=20, bandwidth=20_000_000)
    set_viewport(driver, size)
    page = Page(driver, server).open()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    page.js("""
        window.__rowTops = () => [...document.querySelectorAll('#list .row')].filter((r) => !r.hidden)
            .slice(0, 6).map((r) => Math.round(r.getBoundingClientRect().top));
        window.__lostAt = null;
        window.__bannerAt = null;
        const banner = document.getElementById('banner');
        new MutationObserver(() => {
            if (!banner.hidden && /cannot be reached/.test(banner.textContent) && window.__bannerAt == null) window.__bannerAt = performance.now();
        }).observe(banner, { attributes: true, childList: true, characterData: true, subtree: true });
        window.__watchConnection = setInterval(() => {
            if (classicPhotos.connection !== 'open' && window.__lostAt == null) window.__lostAt = performance.now();
        }, 20);
    """)
    before = page.js("return window.__rowTops()")

    # When the server dies at once, as a crash does
    server.process.kill()
    server.process.wait(timeout=10)

    # Then the banner says so (the page's timer is 3 s past the stream's loss; the bound here only fails the test)
    wait_for(driver, lambda d: d.execute_script("return window.__bannerAt != null"), 30,
             "the banner never said the server cannot be reached")
    lost_at, banner_at = page.js("return [window.__lostAt, window.__bannerAt]")
    print(f"{size}: stream lost -> banner {banner_at - lost_at:.0f} ms (page clock)")
    banner = page.js("""
        const b = document.getElementById('banner').getBoundingClientRect();
        const list = document.getElementById('list').getBoundingClientRect();
        return { top: b.top, bottom: b.bottom, height: b.height, list: list.bottom, screen: innerHeight };
    """)
    # On screen, under the list (it covers none of it)
    assert banner["height"] > 0 and banner["top"] >= banner["list"] - 1 and banner["bottom"] <= banner["screen"] + 1, banner
    # And the rows under the reader have not moved
    assert page.js("return window.__rowTops()") == before
    server.stop()
