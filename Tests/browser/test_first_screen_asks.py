"""A first visit's thumbnails are asked for before the events bring the list (issue 38): the page's
first script reports the first screen and asks for every row on screen the server did not draw ready on
the same request (`POST /api/viewport?thumbnails=A-B`, one connection of the six a browser has over HTTP/1.1, whatever the screen's
height), which the server answers a row at a time as each is filtered, without waiting for the events.
Here the events never come (the page's event stream is a stub that never opens): every row on screen
fills in with its sepia thumbnail all the same, from that one request. (The page before asked for four
rows at a time, a request each.)"""
from __future__ import annotations

import gestures
from conftest import OnePhotoOrigin
from detached_images import BATCHES_ASKED, THUMBNAILS_ASKED, WATCH_DETACHED_IMAGES
from test_page import WORK_TIMEOUT, wait_for

PHOTOS = 40

# Runs before the page's scripts: no SharedWorker (so the page opens a stream of its own) and an
# EventSource that never opens, so the events never bring the list. (What the page asked for, and
# when: WATCH_DETACHED_IMAGES.)
NO_EVENTS = """
window.SharedWorker = undefined;
window.EventSource = class {
  static CONNECTING = 0; static OPEN = 1; static CLOSED = 2;
  constructor(url) { this.url = url; this.readyState = 0; }
  addEventListener() {}
  removeEventListener() {}
  close() { this.readyState = 2; }
};
"""

ROWS = """
const list = document.getElementById('list').getBoundingClientRect();
return [...document.querySelectorAll('#list .row[data-index]')].map((row) => {
  const img = row.querySelector('img.thumb'), box = row.getBoundingClientRect();
  return { index: Number(row.dataset.index), src: img.getAttribute('src') || '', shown: img.complete && img.naturalWidth > 0,
           onScreen: box.top < list.bottom && box.bottom > list.top };
});
"""


def test_the_first_screen_fills_in_before_the_events_bring_the_list(start_server, session_dir, driver):
    # Given a first visit on a laptop whose events never come
    photo = next((session_dir / "samples" / "sample-photos-v2").glob("photo-0*.jpg")).read_bytes()
    origin = OnePhotoOrigin(photo)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": NO_EVENTS + WATCH_DETACHED_IMAGES})
    try:
        source = origin.write_source(session_dir / "first-screen-asks.json", PHOTOS)
        server = start_server("first-screen-asks", photo_count=PHOTOS, latency_ms=20, bandwidth=20_000_000,
                              source=str(source))
        gestures.laptop(driver)

        # When the page loads
        driver.get(server.base_url + "/")
        wait_for(driver, lambda d: d.execute_script("return !!window.classicPhotos"), WORK_TIMEOUT,
                 "the page's modules never ran")
        on_screen = [r["index"] for r in driver.execute_script(ROWS) if r["onScreen"]]
        assert len(on_screen) > 4, on_screen

        # Then every row on screen shows its sepia thumbnail, though the list never came
        wait_for(driver, lambda d: all(r["shown"] and r["src"].endswith(f"/photos/{r['index']}/thumbnail")
                                       for r in d.execute_script(ROWS) if r["index"] in on_screen),
                 WORK_TIMEOUT, "the first screen's rows did not all show their thumbnails without the events")
        page = driver.execute_script(f"return {{ asks: {THUMBNAILS_ASKED}, batches: {BATCHES_ASKED}, count: classicPhotos.count }}")
        assert page["count"] == 0, "the events should never have brought the list"
        # all of them on one request, none asked for on its own
        assert [(b["first"], b["last"]) for b in page["batches"]] == [(on_screen[0], on_screen[-1])], page["batches"]
        assert page["asks"] == [], page["asks"]
        assert {server.photos()[i]["state"] for i in on_screen} == {"filtered"}
    finally:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": ""})
        origin.close()
