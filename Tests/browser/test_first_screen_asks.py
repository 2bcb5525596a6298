"""A first visit's thumbnails are asked for before the events bring the list (issue 38): the page's
first script asks for four rows on screen (over HTTP/1.1 the browser has six connections, one is the
event stream's, and the reports need one), and as each ends the next row on screen is asked for, by the
first script and then by the modules' image loader, without waiting for the events. Here the events
never come (the page's event stream is a stub that never opens): every row on screen fills in with its
sepia thumbnail all the same, never more than four asked at once. (The page before asked for the rows
past the first four only once the events had brought the list: they stayed empty.)"""
from __future__ import annotations

import gestures
from conftest import OnePhotoOrigin
from detached_images import ANSWERS_ENDED, THUMBNAILS_ASKED, WATCH_DETACHED_IMAGES
from test_page import WORK_TIMEOUT, wait_for

PHOTOS = 40

# Runs before the page's scripts: no SharedWorker (so the page opens a stream of its own) and an
# EventSource that never opens, so the events never bring the list. (When the page asked for each
# thumbnail: WATCH_DETACHED_IMAGES; its answer's end is in the resource timings.)
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
        page = driver.execute_script(f"return {{ asks: {THUMBNAILS_ASKED}, ended: {ANSWERS_ENDED}, count: classicPhotos.count }}")
        assert page["count"] == 0, "the events should never have brought the list"
        # each asked for once, in the order of the screen, never more than four on their way at once
        asked = [int(a["url"].rsplit("/", 2)[-2]) for a in page["asks"]]
        assert asked == on_screen, (asked, on_screen)
        spans = [(a["at"], page["ended"][a["url"]]) for a in page["asks"]]
        most = max(sum(start <= at < end for start, end in spans) for at, _ in spans)
        assert most == 4, spans
        assert {server.photos()[i]["state"] for i in on_screen} == {"filtered"}
    finally:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": ""})
        origin.close()
