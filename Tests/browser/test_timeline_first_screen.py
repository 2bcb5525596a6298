"""The timeline shows the first screen's work (issue 57): the page's first rows are worked on as the page is
served, before its event stream opens; their downloads and filters are drawn all the same, as this page's."""
from __future__ import annotations

import gestures
from test_page import Page, wait_for

# The timeline's bars, as (queue, row, this page's) triples.
BARS = """return [...document.querySelectorAll('#timeline .op.bar')]
    .map((el) => [el.dataset.queue, Number(el.dataset.index), el.classList.contains('own')]);"""


def test_the_timeline_draws_the_first_screens_downloads_and_filters(start_server, driver):
    # Given a fresh server (nothing cached), and a laptop's window
    server = start_server("timeline-first-screen", photo_count=60, latency_ms=200, bandwidth=2_000_000)
    gestures.laptop(driver)

    # When a person opens the page and its first screen is done
    page = Page(driver, server).open()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    photos = {p["index"]: p["state"] for p in server.photos()}
    downloaded = {index for index, state in photos.items() if state in ("filtered", "downloaded", "filtering")}
    filtered = {index for index, state in photos.items() if state == "filtered"}
    assert set(range(first, last + 1)) & downloaded, photos

    # Then the timeline has a download bar of this page's for every row downloaded, and a filter bar for
    # every row filtered: the first screen's among them
    def drawn(_):
        bars = page.js(BARS)
        mine = {(queue, index) for queue, index, own in bars if own}
        return (downloaded <= {index for queue, index in mine if queue == "download"}
                and filtered <= {index for queue, index in mine if queue == "filtration"}) and bars
    wait_for(driver, drawn, 30, f"the timeline misses the first screen's work (rows {first}-{last}, "
             f"downloaded {sorted(downloaded)}): it drew {page.js(BARS)}")
