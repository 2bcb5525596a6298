"""A first visit's first screen waits for its thumbnails on one connection (issue 38): the page's first
script asks the server, in one request (`GET /photos/ready`), to say each row whose thumbnail is
ready, and asks for a thumbnail only then, answered at once. Thumbnails asked for one by one and held
until ready took one of the browser's six HTTP/1.1 connections each, and the rest of the screen waited
for them. Watched against an origin that holds every photo after its first bytes."""
from __future__ import annotations

import json

import gestures
from held_photo_origin import HeldPhotoOrigin
from test_page import WORK_TIMEOUT, Page, wait_for

PHOTOS = 12

# Runs before the page's scripts: every image the page loads on its own (a detached Image: the first
# script's and images.js's), with when it was asked for on the page's clock.
WATCH_LOADS = """
window.__loads = [];
const imageSrc = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src');
Object.defineProperty(HTMLImageElement.prototype, 'src', {
  configurable: true, enumerable: true,
  get() { return imageSrc.get.call(this); },
  set(value) { if (!this.isConnected) window.__loads.push([String(value), performance.now()]); imageSrc.set.call(this, value); },
});
"""


def test_a_first_visits_screen_waits_on_one_request_and_asks_for_each_thumbnail_when_ready(start_server, session_dir, driver):
    # Given a list whose photos' origin sends each one's first 4 KB and holds the rest
    photo = (session_dir / "samples" / "sample-photos-v2" / "photo-002.jpg").read_bytes()
    origin = HeldPhotoOrigin(photo, [4096])
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_LOADS})
    try:
        source = session_dir / "held-screen-source.json"
        source.write_text(json.dumps({f"Held {n}": f"{origin.base_url}/held-{n}.jpg" for n in range(PHOTOS)}))
        server = start_server("first-screen-ready", photo_count=PHOTOS, latency_ms=20, bandwidth=20_000_000, source=str(source))
        gestures.laptop(driver)

        # When a first visit opens the page (its first script active: no strategy chosen), and the
        # rows on its screen are downloading, held
        page = Page(driver, server).open()
        wait_for(driver, lambda d: d.execute_script(
            "const e = window.classicPhotosEarly; return !!e && e.waiting.size >= 5"), WORK_TIMEOUT,
            "the page's first script never waited for the first screen's thumbnails")
        waiting = sorted(page.js("return [...window.classicPhotosEarly.waiting]"))
        wait_for(driver, lambda _: all(p["state"] == "downloading" for p in server.photos()[:waiting[-1] + 1]),
                 WORK_TIMEOUT, "the first screen's rows never started downloading")

        # Then while they are held, the page waits on one request and holds no thumbnail request open
        asked_while_held = [url for url, _ in page.js("return window.__loads") if url.endswith("/thumbnail")]
        assert not asked_while_held, asked_while_held
        ready = [e for e in page.js("return performance.getEntriesByType('resource').map((e) => e.name)")
                 if "/photos/ready?" in e]
        pending = page.js("return window.classicPhotosEarly.done")
        assert not pending, "the wait ended while every photo was still held"
        assert not ready, f"the wait for the rows ended while their photos were held: {ready}"

        # And once the rest comes, each row's thumbnail is asked for after it was ready, and shows
        opened = page.js("return performance.now()")
        origin.open_gate(0)
        first, last = page.visible_range()
        page.wait_filtered(first, last)
        loads = page.js("return window.__loads")
        for index in waiting:
            asks = [at for url, at in loads if url.endswith(f"/photos/{index}/thumbnail")]
            assert asks and min(asks) >= opened, (index, asks, opened)
        entries = page.js("return performance.getEntriesByType('resource').map((e) => e.name)")
        assert sum("/photos/ready?" in e for e in entries) == 1, entries
    finally:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": ""})
        origin.close()
