"""Text a person reads is shown whole (issue 57): on a phone the page's title and the introduction's heading
are not cut, whatever the header holds; a refused visit says "1 second", not "1 seconds", and a list of one
photo "1 photo"."""
from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request

import gestures
from test_page import Page, wait_for

# Each element's text, whether it is cut (its text wider than its box), and where it is.
MEASURE = """
    const shown = (el) => {
        const r = el.getBoundingClientRect();
        return { text: el.textContent.trim(), cut: el.scrollWidth > el.clientWidth + 1, left: r.left, right: r.right,
                 top: r.top, bottom: r.bottom, visible: r.width > 0 && getComputedStyle(el).visibility !== 'hidden' };
    };
    const chips = [...document.querySelectorAll('.header-info > *')].filter((el) => el.getBoundingClientRect().width > 1);
    return { title: shown(document.querySelector('.brand h1')), heading: shown(document.getElementById('intro-title')),
             chips: chips.map(shown), width: innerWidth, scrollWidth: document.documentElement.scrollWidth };
"""


def assert_title_whole(seen: dict, when: str):
    title = seen["title"]
    assert title["text"] == "ClassicPhotos Live" and not title["cut"], (when, title)
    assert 0 <= title["left"] and title["right"] <= seen["width"], (when, title)
    # Nothing of the header lies over it, and nothing of the header runs off the screen
    for chip in seen["chips"]:
        assert chip["right"] <= seen["width"] + 1, (when, chip)
        assert chip["left"] >= title["right"] or chip["bottom"] <= title["top"] or chip["top"] >= title["bottom"], (when, title, chip)
    assert seen["scrollWidth"] <= seen["width"], (when, seen)


def test_a_phone_shows_the_title_and_the_introductions_heading_whole(start_server, driver):
    server = start_server("whole-phone", photo_count=60, latency_ms=300, bandwidth=400_000)
    gestures.phone(driver)

    # Given a phone opening the page for the first time (the introduction shown, the rows on their way)
    page = Page(driver, server).open()
    seen = page.js(MEASURE)
    assert_title_whole(seen, "first visit")
    heading = seen["heading"]
    assert heading["visible"] and heading["text"] == "A photo list that only works on what you look at", heading
    assert not heading["cut"] and heading["right"] <= seen["width"], heading

    # When the introduction is dismissed ("About" joins the header) and the page presents (a longer button)
    driver.find_element("css selector", "[data-action=dismiss-intro]").click()
    driver.find_element("css selector", "#present-button").click()
    wait_for(driver, lambda d: d.execute_script("return classicPhotos.presentation.role") == "presenter", 30,
             "presenting never started")
    # Then the title is still whole, and so is every chip of the header
    assert_title_whole(page.js(MEASURE), "intro dismissed, presenting")


def refused_pages(server, tries: int = 200):
    """New visits from this address as fast as they go until the server refuses them (its new-viewer rate,
    60 a minute by default, refills a viewer a second): each refusal's Retry-After and page."""
    refused = []
    for number in range(tries):
        request = urllib.request.Request(f"{server.base_url}/?visit={number}", headers={"Accept": "text/html"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
        except urllib.error.HTTPError as error:
            assert error.code == 429, error.code
            refused.append((int(error.headers["Retry-After"]), error.read().decode()))
            if len(refused) >= 3:
                break
    return refused


def test_a_refused_visit_says_when_it_tries_again_in_words_that_agree(start_server, driver):
    server = start_server("whole-refused", photo_count=20, latency_ms=10, bandwidth=20_000_000)
    # When one address opens the page faster than the server admits new viewers
    refused = refused_pages(server)
    # Then each refusal says in how long it tries again, "1 second" for one (its Retry-After)
    assert refused and any(seconds == 1 for seconds, _ in refused), [seconds for seconds, _ in refused]
    for seconds, page in refused:
        words = "1 second." if seconds == 1 else f"{seconds} seconds."
        assert f"tries again by itself in {words}" in page, (seconds, page)
        assert "1 seconds" not in page, page
    # And a browser shows it so
    one = next(page for seconds, page in refused if seconds == 1)
    driver.get("data:text/html;charset=utf-8," + urllib.parse.quote(one))
    assert "tries again by itself in 1 second." in driver.find_element("css selector", "main").text


def test_a_list_of_one_photo_says_one_photo(start_server, driver):
    server = start_server("whole-one-photo", photo_count=1, latency_ms=10, bandwidth=20_000_000)
    Page(driver, server).open()
    wait_for(driver, lambda d: d.find_element("id", "source-status").text.startswith("Ready"), 30, "the list never said it was ready")
    assert driver.find_element("id", "source-status").text == "Ready · 1 photo"
