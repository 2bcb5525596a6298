"""The final thumbnails of a stop's rows are asked for at the stop, ahead of their last bytes (issue 38):
on the stop's own request (`POST /api/viewport?thumbnails=A-B`) that the server answers a row at a time, each the moment its
filter is done, so neither an event's way nor a round trip follows the filter, and the rows need no ask
of their own; the previews of the bytes arrived come on it too. Against an origin that holds each
photo's last bytes until the test lets them go."""
from __future__ import annotations

import json

import gestures
from detached_images import BATCHES_ASKED, PREVIEWS_ASKED, THUMBNAILS_ASKED, WATCH_DETACHED_IMAGES
from held_photo_origin import HeldPhotoOrigin
from test_page import WORK_TIMEOUT, Page, wait_for


def held_list(session_dir, name: str, count: int, pace: int | None = None, third: bool = False):
    """An origin holding a sample photo's last 2 KB (sent at `pace` bytes a second up to there; with
    `third`, held at a third of it first), and a data source of `count` photos on it."""
    photo = (session_dir / "samples" / "sample-photos-v2" / "photo-002.jpg").read_bytes()
    origin = HeldPhotoOrigin(photo, ([len(photo) // 3] if third else []) + [len(photo) - 2048], pace=pace)
    source = session_dir / f"{name}-source.json"
    source.write_text(json.dumps({f"Held photo {i}": f"{origin.base_url}/held-{i}.jpg" for i in range(count)}))
    return origin, source


def test_a_stops_final_thumbnails_are_asked_for_at_the_stop_on_one_request(start_server, session_dir, driver):
    # Given a list whose photos all arrive but for their last bytes, and a page watched from its start
    origin, source = held_list(session_dir, "held-stop", 60)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_DETACHED_IMAGES})
    try:
        server = start_server("held-stop", photo_count=60, latency_ms=20, bandwidth=20_000_000, source=str(source))
        gestures.laptop(driver)
        page = Page(driver, server).open()

        # When a person jumps into rows nobody has seen (a click in the scrollbar's track)
        gestures.track_click(driver, "#list", 0.6)
        page.wait_reported()
        first, last = page.visible_range()
        assert first > 9, (first, last)

        # Then the page has asked for the final thumbnails of every row on screen on one request, while
        # no photo's last bytes have come (so none is filtered)
        def covering(d):
            return [b for b in d.execute_script("return " + BATCHES_ASKED) if b["first"] <= first and b["last"] >= last]
        wait_for(driver, covering, WORK_TIMEOUT, f"no batch asked for rows {first}...{last}")
        states = {p["state"] for p in server.photos()[first:last + 1]}
        assert "filtered" not in states, states

        # And once the last bytes come, every row on screen shows its sepia thumbnail from that request,
        # none asked for on its own
        origin.open_gate(0)
        page.wait_filtered(first, last)
        own = [load["url"] for load in page.js("return " + THUMBNAILS_ASKED)
               if first <= int(load["url"].rsplit("/", 2)[1]) <= last]
        assert own == [], own
        assert len(covering(driver)) == 1, page.js("return " + BATCHES_ASKED)
    finally:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": ""})
        origin.close()


def test_a_steady_downloads_previews_and_final_thumbnail_come_on_one_ask_before_its_last_byte(start_server, session_dir, driver):
    # Given a list of one photo whose origin sends it at a steady pace, holding it at a third, then its
    # last 2 KB
    origin, source = held_list(session_dir, "steady", 1, pace=300_000, third=True)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_DETACHED_IMAGES})
    try:
        server = start_server("steady", photo_count=1, latency_ms=20, bandwidth=20_000_000, source=str(source))
        # (a chosen strategy: the page's first script asks for no thumbnail of its own, images.js does)
        page = Page(driver, server).open("/?strategy=prefetch")

        # When a third has come: the page has asked for its final thumbnail already (the server holds
        # the request until the filter is done)
        wait_for(driver, lambda d: d.execute_script("return " + BATCHES_ASKED),
                 WORK_TIMEOUT, "the page never asked for the final thumbnail while the photo was held")
        assert origin.sent < origin.cuts[0] + 1, origin.sent
        asked = page.js("return " + BATCHES_ASKED)[0]["at"]

        # Then, all but the last bytes let go, the row shows previews of its bytes arrived from that
        # ask (data URLs: a preview asked for on its own is a URL)
        origin.open_gate(0)
        wait_for(driver, lambda d: (d.execute_script(
            "const img = document.querySelector('#row-0 img.thumb'); return img && img.getAttribute('src')") or "").startswith("data:image/")
            and "/partial?n=" in d.execute_script("return document.querySelector('#row-0 img.thumb').getAttribute('src')"),
            WORK_TIMEOUT, "the row never showed a preview from its ask while the last bytes were held")
        assert server.photos()[0]["state"] == "downloading", server.photos()[0]

        # And, the rest let go, that one ask is answered with the final image: no second ask, and no
        # preview asked on its own once it was made (not even as it ends, the events still saying the
        # photo downloads)
        origin.open_gate(1)
        page.wait_filtered(0, 0)
        assert [load for load in page.js("return " + PREVIEWS_ASKED) if load["at"] >= asked] == []
        assert page.js("return " + THUMBNAILS_ASKED) == []
        assert len(page.js("return " + BATCHES_ASKED)) == 1
    finally:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": ""})
        origin.close()
