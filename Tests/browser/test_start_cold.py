"""Start cold (issue 37), in two browsers against a real server: the presenter presses "Start cold" beside its
share link, and the follower's rows (and the presenter's) go back to placeholders and fill again from the
origin, without a restart. The origin holds every photo asked for after the cold start until the test lets
them go, so the placeholders are looked at while the photos certainly have not come back. A presenter
whose server has a viewer that does not follow it is told why it cannot."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from test_follow_presenter import STATE, follower_open
from test_page import Page, wait_for

PHOTOS = 24
# A row's thumbnail as the page shows it: its src and whether it has loaded.
THUMB = """
    const img = document.querySelector('#list .row[data-index="' + arguments[0] + '"] [data-role="thumb"]');
    return img ? { src: img.getAttribute('src') || '', loaded: img.complete && img.naturalWidth > 0 } : null;
"""

# The tops of the first rows drawn, and where the banner and the list are.
ROW_TOPS = """return [...document.querySelectorAll('#list .row')].filter((r) => !r.hidden).slice(0, 6)
    .map((r) => Math.round(r.getBoundingClientRect().top));"""
BOXES = """const box = (id) => document.getElementById(id).getBoundingClientRect().toJSON();
    return { banner: box('banner'), list: box('list'), height: innerHeight };"""


class HoldingOrigin:
    """Serves one JPEG at every path; while held, a request waits (its headers unsent) until released.
    `requests` counts the requests of each path."""

    def __init__(self, photo: bytes):
        self.open = threading.Event()
        self.open.set()
        self.closed = threading.Event()
        self.requests: dict[str, int] = {}
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's naming
                origin.requests[self.path] = origin.requests.get(self.path, 0) + 1
                # Bounded waits, so that close() ends the thread while held.
                while not origin.open.wait(0.5):
                    if origin.closed.is_set():
                        return
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(photo)))
                self.end_headers()
                self.wfile.write(photo)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def write_source(self, path):
        path.write_text(json.dumps({f"Photo {n:02d}": f"{self.base_url}/p{n:02d}.jpg" for n in range(PHOTOS)}))
        return path

    def close(self):
        self.closed.set()
        self.open.set()
        self.httpd.shutdown()


def start_cold_server(name, start_server, session_dir, tmp_path):
    # The session's sample photos: one of them is every photo here.
    photo = (session_dir / "samples" / "sample-photos-v2" / "photo-000.jpg").read_bytes()
    origin = HoldingOrigin(photo)
    source = origin.write_source(tmp_path / "cold-source.json")
    return origin, start_server(name, photo_count=PHOTOS, latency_ms=20, bandwidth=20_000_000, source=str(source))


def open_presenter(driver, server) -> Page:
    """A page that presents (`?present`), once its share link is there."""
    page = Page(driver, server).open("/?present")
    wait_for(driver, lambda d: d.execute_script(STATE)["link"], 30, "presenting never started")
    return page


def test_start_cold_sends_the_followers_rows_back_to_placeholders_and_they_fill_again(
        start_server, session_dir, tmp_path, make_driver):
    origin, cold_server = start_cold_server("cold", start_server, session_dir, tmp_path)
    presenter_driver, follower_driver = make_driver(), make_driver()
    try:
        # Given a presenter and a follower, both showing the top rows in sepia
        presenter = open_presenter(presenter_driver, cold_server)
        follower_open(follower_driver, presenter.js(STATE)["link"])
        follower = Page(follower_driver, cold_server)
        wait_for(presenter_driver, lambda d: d.execute_script(STATE)["followers"] == 1, 30, "the presenter never saw its follower")
        presenter.wait_filtered(0, 2)
        follower.wait_filtered(0, 2)
        before = {n: origin.requests.get(f"/p{n:02d}.jpg", 0) for n in range(3)}
        assert all(before.values()), origin.requests

        # When the origin holds what is asked from now on and the presenter presses "Start cold" beside its link
        origin.open.clear()
        presenter_driver.find_element("css selector", "#presentation-bar [data-action=start-cold]").click()

        # Then both pages start over: their rows go back to placeholders (the photos are held at the origin)
        for page, who in ((follower, "follower"), (presenter, "presenter")):
            wait_for(page.driver, lambda d: d.execute_script(STATE)["startedOver"] == 1, 30, f"the {who}'s page never started over")
            wait_for(page.driver, lambda d: all(
                d.execute_script("return classicPhotos.rowState(arguments[0])", n) in ("new", "downloading")
                and d.execute_script(THUMB, n)["src"] == "" for n in range(3)), 30,
                f"the {who}'s rows did not go back to placeholders: {page.rows(0, 2)}")
        # The presenter's rows on screen are asked for again from the origin at once; the follower asked for nothing
        wait_for(presenter_driver, lambda d: all(origin.requests.get(f"/p{n:02d}.jpg", 0) > before[n] for n in range(3)), 30,
                 f"the rows on screen were not downloaded again: {origin.requests}")
        assert follower.js("return classicPhotos.reports.sent") == 0
        assert follower.js(STATE)["following"] is True

        # When the origin lets them go, both pages fill again
        origin.open.set()
        follower.wait_filtered(0, 2)
        presenter.wait_filtered(0, 2)
    finally:
        origin.close()


def test_start_cold_is_refused_with_the_reason_while_someone_does_not_follow(
        start_server, session_dir, tmp_path, make_driver):
    origin, cold_server = start_cold_server("cold-refused", start_server, session_dir, tmp_path)
    presenter_driver, other_driver = make_driver(), make_driver()
    try:
        # Given a presenter, and someone else on the server looking at the list on their own
        presenter = open_presenter(presenter_driver, cold_server)
        other = Page(other_driver, cold_server).open("/")
        other.wait_filtered(0, 2)

        # When the presenter presses "Start cold"
        tops = presenter.js(ROW_TOPS)
        presenter_driver.find_element("css selector", "#presentation-bar [data-action=start-cold]").click()

        # Then the page says why not, and nobody's rows went back
        wait_for(presenter_driver, lambda d: "Could not start cold" in d.find_element("css selector", "#banner").text, 30,
                 "the refusal was never shown")
        banner = presenter_driver.find_element("css selector", "#banner").text
        assert "1 other viewer" in banner and "work" in banner, banner
        # And the refusal, on screen, covers no part of the list, whose rows have not moved
        boxes = presenter.js(BOXES)
        assert boxes["banner"]["height"] > 0 and boxes["banner"]["bottom"] <= boxes["height"] + 1, boxes
        assert boxes["banner"]["top"] >= boxes["list"]["bottom"] - 1 or boxes["banner"]["bottom"] <= boxes["list"]["top"] + 1, boxes
        assert presenter.js(ROW_TOPS) == tops
        assert presenter.js(STATE)["startedOver"] == 0
        assert all(r["state"] == "filtered" for r in other.rows(0, 2)), other.rows(0, 2)
    finally:
        origin.close()
