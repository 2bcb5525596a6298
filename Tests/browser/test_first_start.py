"""A first start, as a newcomer meets it: the server makes its sample photos for a while, and the page
opened meanwhile says so, with how far it is, then shows the list; the browser's console stays clean
from the first request (no failed request logged, no error)."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from conftest import Server
from test_page import Page, wait_for

PROGRESS = re.compile(r"making the sample photos, (\d+) of (\d+)")


@pytest.fixture
def first_start(session_dir):
    """A server whose cache folder is empty: it generates the sample photos before its list is ready."""
    cache = Path(tempfile.mkdtemp(prefix="first-start-", dir=session_dir))
    server = Server(Path(session_dir), cache, "first-start", photo_count=300, latency_ms=20, bandwidth=20_000_000)
    server.wait_listening()
    yield server
    server.stop()


def test_a_first_start_says_the_photos_are_being_made_and_the_console_stays_clean(first_start, driver):
    # The page opens while the server still makes the photos (it answers from the first moment).
    driver.get(first_start.base_url + "/")
    seen: list[tuple[int, int]] = []

    def progress(d):
        text = d.execute_script("return document.getElementById('list-message').textContent + ' | ' + "
                                "document.getElementById('source-status').textContent")
        match = PROGRESS.search(text)
        if match:
            made, total = int(match.group(1)), int(match.group(2))
            if not seen or seen[-1] != (made, total):
                seen.append((made, total))
        return d.execute_script("return window.classicPhotos && classicPhotos.count > 0")

    wait_for(driver, progress, 240, "the list never came")
    assert seen, ("the page never said the sample photos were being made (was the list ready before the page "
                  "loaded? the server's log: " + first_start.stderr() + ")")
    made = [m for m, _ in seen]
    # Of the 300 listed, the few deliberately mis-named have no file to make.
    assert made == sorted(made) and len({total for _, total in seen}) == 1 and 280 <= seen[0][1] <= 300, seen
    assert len(seen) >= 2 and made[-1] > made[0], f"the progress never moved: {seen}"
    # Then the list, and a console with nothing logged against the page.
    page = Page(driver, first_start)
    page.wait_reported()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    logged = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    assert not logged, f"the console logged: {logged}"
