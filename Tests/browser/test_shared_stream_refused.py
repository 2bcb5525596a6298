"""A browser whose shared event stream its address cannot have (issue 57, item 4): past
`--shared-streams-per-client` (here 1, each stream carrying a viewer) the server refuses it with 429,
which `EventSource` cannot read; the page said "The server cannot be reached" and never got its list.
Now the hub asks why, and its pages fall back to a stream of their own viewer, which the server gives."""
from __future__ import annotations

from test_page import Page, wait_for
from test_room_behind_one_address import Browser


def test_a_page_past_its_addresss_shared_streams_falls_back_to_its_own_stream(start_server, make_driver):
    server = start_server("shared-refused", photo_count=60, latency_ms=5, bandwidth=50_000_000,
                          env={"CLASSIC_PHOTOS_SHARED_STREAMS_PER_CLIENT": "1"})
    driver = make_driver()
    # Given one browser whose page holds the address's one shared stream
    Page(driver, server).open("/")
    assert driver.execute_script("return classicPhotos.count") == 60

    # When a second browser behind the same address opens the page
    browser = Browser(driver)
    try:
        second = browser.open_in_own_context(server.base_url + "/")
    finally:
        browser.close()
    driver.switch_to.window(second)

    # Then its list comes on a stream of its own, and it does not say the server cannot be reached
    wait_for(driver, lambda d: d.execute_script("return !!(window.classicPhotos && classicPhotos.count === 60)"), 60,
             "the second browser's page never got its list: "
             + driver.execute_script("return document.body ? document.body.innerText.slice(0, 300) : ''"))
    text = driver.execute_script("return document.body.innerText")
    assert "cannot be reached" not in text, text[:500]
