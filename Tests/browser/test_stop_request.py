"""A stop is one request (issue 58): the stop's report and its rows' thumbnails (and previews) on the same
`POST /api/viewport?thumbnails=A-B`, the server taking the report before it answers. Real input through
Chromium's own pipeline (CDP): after a wheel run's last notch and after a thumb drag's release, the page
makes one request for the rows where the list came to rest, and those rows fill in from it."""
from __future__ import annotations

import pytest

import gestures
from test_page import Page

WHEEL_STILL_MS = 220  # Public/scroll-end.js

# Every request the page makes from now on for a report or a row's image, with when ({url, at}): its
# fetches and the images it sets (data URLs are images a request brought, not requests); and when the
# last wheel event and the last pointer release reached the page (`__input`; `wheels`: when each was made).
RECORD_REQUESTS = """
    window.__requests = [];
    window.__input = {};
    for (const type of ['wheel', 'pointerup']) {
        window.addEventListener(type, (event) => {
            // A notch: when the page got it (its timeStamp is when it was made); a release: when it was made.
            window.__input[type] = type === 'wheel' ? performance.now() : event.timeStamp;
            (window.__input[type + 's'] = window.__input[type + 's'] || []).push(event.timeStamp);
        }, { capture: true });
    }
    const nativeFetch = window.fetch;
    window.fetch = function (input, init) {
        window.__requests.push({ url: String(input), at: performance.now() });
        return nativeFetch.apply(this, arguments);
    };
    const imageSrc = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src');
    Object.defineProperty(HTMLImageElement.prototype, 'src', {
        configurable: true, enumerable: true,
        get() { return imageSrc.get.call(this); },
        set(value) {
            const url = String(value);
            if (!url.startsWith('data:') && !url.includes('placeholder') && !url.includes('failed.svg')) {
                window.__requests.push({ url, at: performance.now() });
            }
            imageSrc.set.call(this, value);
        },
    });
"""


def requests_since(page: Page, since: float) -> list[str]:
    """The reports and the images of rows on screen asked for since `since` (rows beside the screen
    that are ready may load theirs)."""
    first, last = page.visible_range()
    on_screen = lambda url: "/photos/" not in url or first <= int(url.split("/photos/")[1].split("/")[0]) <= last
    return [r["url"] for r in page.js("return window.__requests") if r["at"] >= since and on_screen(r["url"])]


def came_to_rest(page: Page) -> tuple[int, int]:
    """Waits until the stop is reported and its rows show their sepia thumbnails (or, for the sample's
    mis-named photos, their failure); their rows."""
    page.wait_reported()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    return first, last


def assert_one_stop_request(page: Page, since: float, rows: tuple[int, int]) -> None:
    asked = requests_since(page, since)
    assert len(asked) == 1, asked
    assert "/api/viewport?thumbnails=" in asked[0], asked
    first, last = (int(n) for n in asked[0].split("thumbnails=")[1].split("&")[0].split("-"))
    assert rows[0] <= first <= last <= rows[1], (asked, rows)


def test_a_wheel_run_ends_in_one_request(start_server, driver):
    # Given a page at rest at the top of a cold list (no rows ahead prepared: visible only)
    server = start_server("stop-one-request-wheel", photo_count=300, latency_ms=100, bandwidth=2_000_000)
    page = Page(driver, server).open("/?strategy=visible")
    page.js(RECORD_REQUESTS)
    x, y = gestures.center_of(driver, "#list")

    # When a person turns the wheel twelve notches, 40 ms apart (as one run: a machine that delivers
    # them further apart than a run's notches, the page's WHEEL_STILL_MS, gets another try)
    for _ in range(4):
        page.js("window.__input.wheels = []")
        gestures.wheel(driver, x, y, notches=12, interval_s=0.04)
        notches = page.js("return window.__input.wheels")
        if max(b - a for a, b in zip(notches, notches[1:])) < WHEEL_STILL_MS:
            break
        came_to_rest(page)
    else:
        pytest.fail("the machine never delivered the notches as one run in 4 tries")

    # Then, once the list is still, the page made one request: the stop, asking for its rows' thumbnails,
    # and its rows filled in from it
    rows = came_to_rest(page)
    assert rows[0] >= 10, rows
    assert_one_stop_request(page, page.js("return window.__input.wheel"), rows)


def test_a_thumb_drag_ends_in_one_request(start_server, driver):
    # Given a page at rest at the top of a cold list
    server = start_server("stop-one-request-drag", photo_count=300, latency_ms=100, bandwidth=2_000_000)
    page = Page(driver, server).open("/?strategy=visible")
    page.js(RECORD_REQUESTS)

    # When a person drags the scrollbar's thumb to the middle and lets go (the release is the stop)
    gestures.drag_scrollbar(driver, "#list", 0.5, hold_s=0.1)

    # Then the page made one request after the release: the stop with its rows' thumbnails
    rows = came_to_rest(page)
    assert rows[0] > 100, rows
    assert_one_stop_request(page, page.js("return window.__input.pointerup"), rows)

