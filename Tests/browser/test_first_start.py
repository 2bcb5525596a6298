"""A first start, as a newcomer meets it: a list of any length is there at once (each sample photo is
made when its row first asks for it, the rest in the background), the rows on screen fill in, and the
browser's console stays clean from the first request (no failed request logged, no error)."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from conftest import Server
from test_page import Page, wait_for

# Far more photos than a first start could make before its list is ready, were it to make them all first
# (about eleven a second on a 2-core machine: a quarter of an hour).
PHOTOS = 10_000


@pytest.fixture
def first_start(session_dir):
    """A server whose cache folder is empty: none of its sample photos is on disk yet."""
    cache = Path(tempfile.mkdtemp(prefix="first-start-", dir=session_dir))
    server = Server(Path(session_dir), cache, "first-start", photo_count=PHOTOS, latency_ms=20, bandwidth=20_000_000)
    server.wait_listening()
    yield server
    server.stop()


def test_a_first_start_shows_its_whole_list_and_first_screen_and_the_console_stays_clean(first_start, driver):
    # The page opens as the server starts (it answers from the first moment).
    driver.get(first_start.base_url + "/")
    # The whole list is there without waiting for its photos to be made: the bound is far below the
    # minutes making them all would take.
    wait_for(driver, lambda d: d.execute_script("return window.classicPhotos && classicPhotos.count"), 60,
             "the list never came: " + first_start.stderr())
    assert driver.execute_script("return classicPhotos.count") == PHOTOS
    # Its first screen's photos are made as their rows ask for them, and fill in.
    page = Page(driver, first_start)
    page.wait_reported()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    # And a console with nothing logged against the page.
    logged = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    assert not logged, f"the console logged: {logged}"
