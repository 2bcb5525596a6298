"""The page in a real browser against a real server: rows, scrolling, failures, two viewers, a screenshot."""
from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest
from selenium.webdriver.support.ui import WebDriverWait

from conftest import EventStream, new_viewer

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
# Seconds for rows to be downloaded and filtered (a debug build filters slowly).
WORK_TIMEOUT = float(os.environ.get("CLASSIC_PHOTOS_WORK_TIMEOUT", "120"))
ROW_HEIGHT = 80
TITLE = "ClassicPhotos Live"


def wait_for(driver, condition, timeout: float, message: str):
    """WebDriverWait on a condition in the page, with a message that says what was awaited."""
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition, message)


def after_frames(driver, count: int = 2):
    """Returns once the page has drawn `count` more frames and run the tasks queued before them (so
    observers of what those frames did, such as layout shifts, have been told)."""
    driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        let left = arguments[0];
        const frame = () => (--left > 0 ? requestAnimationFrame(frame) : setTimeout(done, 0));
        requestAnimationFrame(frame);
    """, count)


class Page:
    """The page in one browser window, driven through the DOM and `window.classicPhotos`."""

    def __init__(self, driver, server):
        self.driver = driver
        self.server = server

    def js(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    def open(self, path: str = "/"):
        self.driver.get(self.server.base_url + path)
        wait_for(self.driver, lambda d: d.execute_script(
            "return !!(window.classicPhotos && classicPhotos.count > 0)"), 60,
            "the page never built its rows (no snapshot?)")
        self.wait_reported()
        return self

    @property
    def count(self) -> int:
        return self.js("return classicPhotos.count")

    def visible_range(self) -> tuple[int, int]:
        visible = self.js("return classicPhotos.visibleRange()")
        return visible["first"], visible["last"]

    def scroll_to(self, offsets, interval_ms: int = 80):
        """Sets the list's scrollTop to each offset in turn, `interval_ms` apart (less than the page's
        150 ms scroll-end delay, so it is one scroll gesture), and returns once the last scroll event
        has been dispatched."""
        self.driver.execute_async_script("""
            const offsets = arguments[0], interval = arguments[1], done = arguments[arguments.length - 1];
            const list = document.getElementById('list');
            let i = 0;
            const step = () => {
                list.scrollTop = offsets[i++];
                if (i < offsets.length) { setTimeout(step, interval); return; }
                requestAnimationFrame(() => requestAnimationFrame(() => done(list.scrollTop)));
            };
            step();
        """, [int(o) for o in offsets], interval_ms)

    def wait_reported(self, timeout: float = 20):
        """Waits until scrolling has ended and the server acknowledged the visible rows."""
        wait_for(self.driver, lambda d: d.execute_script("""
            const c = classicPhotos, r = c.reports, v = c.visibleRange(), a = r.lastAcknowledged;
            return !!(v && !c.scrolling && !r.inFlight && !r.pending && a && a.scrolling === false
                      && a.first === v.first && a.last === v.last);
        """), timeout, "the visible rows were never reported to the server (POST /api/viewport)")

    def rows(self, first: int, last: int) -> list[dict]:
        return self.js("""
            const out = [];
            for (let i = arguments[0]; i <= arguments[1]; i++) {
                const row = document.querySelector('#list .row[data-index="' + i + '"]');
                if (!row) { out.push({index: i, missing: true}); continue; }
                const img = row.querySelector('img.thumb');
                out.push({
                    index: i, state: row.dataset.state,
                    src: img ? (img.getAttribute('src') || '') : null,
                    complete: !!(img && img.complete), naturalWidth: img ? img.naturalWidth : 0,
                    status: row.querySelector('.status').textContent,
                    reason: row.querySelector('.reason').textContent,
                });
            }
            return out;
        """, first, last)

    def wait_filtered(self, first: int, last: int, timeout: float = WORK_TIMEOUT, allow_failed: bool = False):
        """Waits until rows first...last show their loaded sepia thumbnails (or, with allow_failed,
        the failed image for photos the origin does not have)."""
        def done(row):
            if not row.get("complete") or row.get("naturalWidth", 0) <= 0:
                return False
            src = row.get("src") or ""
            if row.get("state") == "filtered":
                return src.endswith(f"/photos/{row['index']}/thumbnail")
            return allow_failed and row.get("state") == "failed" and "failed.svg" in src

        try:
            wait_for(self.driver, lambda _: all(done(r) for r in self.rows(first, last)), timeout,
                     f"rows {first}...{last} did not all turn sepia")
        except Exception:
            pending = [(r["index"], r.get("state"), r.get("src"), r.get("naturalWidth"))
                       for r in self.rows(first, last) if not done(r)]
            pytest.fail(f"rows {first}...{last} did not all turn sepia within {timeout:.0f} s; not yet: {pending}; "
                        f"server stats: {self.server.stats()}", pytrace=False)
        rows = self.rows(first, last)
        assert any(r["state"] == "filtered" for r in rows), rows
        return rows


def screens(start: int, end: int, steps: int) -> list[int]:
    return [round(start + (end - start) * (k + 1) / steps) for k in range(steps)]


# ---------------------------------------------------------------------------------------------- 1


def test_page_loads(server, driver):
    page = Page(driver, server).open()
    listing = server.get_json("/api/photos")
    assert listing["status"] == "ready"

    assert driver.title == TITLE
    assert driver.find_element("css selector", "h1").text == TITLE
    # The list is virtualised: only the rows near the screen are in the DOM, from the top, in
    # index order, each saying where it sits in the whole list.
    assert page.count == listing["count"] == len(listing["photos"]) == server.photo_count
    rows = page.js("return [...document.querySelectorAll('#list .row')].map(r => +r.dataset.index)")
    assert rows == list(range(len(rows))), "rows are not in index order"
    assert 5 <= len(rows) < 40, rows
    sizes = page.js("return [...document.querySelectorAll('#list .row')].map(r => r.getAttribute('aria-setsize'))")
    assert set(sizes) == {str(server.photo_count)}, sizes
    names = page.js("return [...document.querySelectorAll('#list .row .name')].slice(0, 5).map(n => n.textContent)")
    assert names == [p["name"] for p in listing["photos"][:5]]

    status = driver.find_element("id", "source-status")
    assert status.get_attribute("data-status") == "ready"
    assert "ready" in status.text.lower() and str(listing["count"]) in status.text

    assert page.js("return classicPhotos.connection") == "open", "the EventSource is not open"
    seen = page.js("return classicPhotos.eventsSeen")
    assert seen.get("source", 0) >= 1 and seen.get("snapshot", 0) >= 1, seen
    viewer = page.js("return classicPhotos.viewer")
    assert viewer and viewer == driver.find_element("tag name", "body").get_attribute("data-viewer")

    # Every row is 80 px high, so a row's index follows from the list's scrollTop.
    heights = page.js("return [...document.querySelectorAll('#list .row')].slice(0, 20).map(r => r.getBoundingClientRect().height)")
    assert all(abs(h - ROW_HEIGHT) < 0.5 for h in heights), heights
    first, last = page.visible_range()
    assert first == 0 and last >= 3, (first, last)

    # No thousands of image requests: only rows on or near the screen have an <img src>, and the
    # page never loads more than four images at once (with the event stream and the viewport
    # reports, that is the browser's six connections to the server).
    with_src = page.js("return document.querySelectorAll('#list .row img.thumb[src]').length")
    margin = max(3, server.prefetch, (last - first + 2) // 2)
    assert with_src <= (last - first + 1) + 2 * margin, with_src
    photo_requests = page.js(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes('/photos/')).length")
    assert photo_requests <= 3 * ((last - first + 1) + 2 * margin), photo_requests
    assert page.js("return classicPhotos.images.maxInFlight") <= 4


# ---------------------------------------------------------------------------------------------- 2


def test_first_screen_turns_sepia(server, driver):
    page = Page(driver, server).open()
    first, last = page.visible_range()
    # A mis-named photo of the sample origin may be on the first screen: it shows as failed.
    page.wait_filtered(first, last, allow_failed=True)

    photos = server.photos()
    for row in page.rows(first, last):
        photo = photos[row["index"]]
        assert row["state"] == photo["state"], (row, photo)
        if photo["state"] == "failed":
            assert photo["reason"] and row["reason"] == photo["reason"], (row, photo)
            continue
        assert photo["state"] == "filtered", photo
        assert row["src"].endswith(f"/photos/{row['index']}/thumbnail"), row
        assert row["naturalWidth"] > 0, row
    assert sum(photos[i]["state"] == "filtered" for i in range(first, last + 1)) >= (last - first + 1) - 2
    assert page.js("return classicPhotos.images.maxInFlight") <= 4
    # The live panel shows the server's totals.
    started = int(driver.find_element("id", "stat-dl-started").text.replace(",", ""))
    assert started >= last - first + 1
    assert driver.find_element("id", "stat-bytes").text.split()[-1] in ("B", "KB", "MB", "GB")


def test_rows_load_small_images_only(server, driver):
    """A row shows the unfiltered preview, then the sepia thumbnail, and never the original: the
    image bytes of the list stay within 2.2x those of the sepia thumbnails it shows."""
    page = Page(driver, server).open()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    images = page.js("""
        return performance.getEntriesByType('resource')
            .filter((e) => e.name.includes('/photos/'))
            .map((e) => ({ name: e.name, bytes: e.encodedBodySize }));
    """)
    assert not [i for i in images if "/original" in i["name"]], images
    thumbnails = sum(i["bytes"] for i in images if i["name"].endswith("/thumbnail"))
    total = sum(i["bytes"] for i in images)
    print(f"list images: {total} bytes, of which sepia thumbnails {thumbnails} ({total / max(1, thumbnails):.2f}x)")
    assert thumbnails > 0 and total <= 2.2 * thumbnails, images
    # And each row shows its whole photo, letterboxed in its box, whatever the photo's aspect.
    fits = page.js("return [...document.querySelectorAll('#list img.thumb')].map((i) => getComputedStyle(i).objectFit)")
    assert fits and set(fits) == {"contain"}, fits


# ---------------------------------------------------------------------------------------------- 3, 4


@pytest.fixture(scope="class")
def story():
    """What one step of a class leaves for the next."""
    return {}


class TestFastScroll:
    """A viewer loads the list and flings it to the bottom at once, then back to the top."""

    def test_fast_scroll_to_the_bottom(self, slow_server, class_driver, story):
        page = Page(class_driver, slow_server).open()
        story["page"] = page
        count = page.count
        top = page.visible_range()
        story["top"] = top
        suspended_before = page.js("return classicPhotos.suspendedSeen")
        sent_before = page.js("return classicPhotos.reports.sent")

        # Fling: twelve quick steps to the end of the list, one scroll gesture.
        page.scroll_to(screens(0, count * ROW_HEIGHT, 12))

        # The page told the server it was scrolling, and the server suspended this viewer's queues.
        wait_for(class_driver, lambda d: d.execute_script("return classicPhotos.suspendedSeen") > suspended_before,
                 10, "the download queue was never reported suspended while scrolling (#dl-suspended)")
        page.wait_reported()
        # The top rows whose download was still running when the scroll stopped (the first screen
        # starts only the rows a window shows, so on a quick machine there may be none).
        at_stop = slow_server.photos()
        running_at_top = [i for i in range(top[0], top[1] + 1) if at_stop[i]["state"] == "downloading"]
        assert page.js("return classicPhotos.reports.sent") - sent_before >= 2
        first, last = page.visible_range()
        assert last == count - 1, (first, last)

        # Where the scroll stopped, the rows fill in.
        page.wait_filtered(first, last, allow_failed=True)

        # Rows that were only passed over were never downloaded.
        photos = slow_server.photos()
        # At rest the server reads ahead its margin, or half a screen if more.
        margin = max(slow_server.prefetch, (top[1] - top[0] + 2) // 2) + 1
        passed_over = range(top[1] + margin + 1, first - margin)
        touched = [(i, photos[i]["state"]) for i in passed_over if photos[i]["state"] != "new"]
        assert len(passed_over) > 200
        assert not touched, f"rows only scrolled past were worked on: {touched[:10]}"
        stats = slow_server.stats()
        assert stats["downloads"]["started"] < count // 4, stats["downloads"]
        # Downloads of top rows still running when the scroll stopped were cancelled, not finished.
        if running_at_top:
            assert stats["downloads"]["cancelled"] >= 1, (stats["downloads"], running_at_top)
        story["unfinished"] = [i for i in range(top[0], top[1] + 1) if photos[i]["state"] != "filtered"]

    def test_scrolling_back_fills_skipped_rows(self, slow_server, class_driver, story):
        page = story.get("page")
        if page is None:
            pytest.fail("the fast scroll step did not run", pytrace=False)
        # The top rows the fling left unfinished, if any (visible rows start at once and the page
        # starts its first screen as it loads, so on a quick machine there may be none): all of
        # them, and every row on screen at the top, fill in.
        unfinished = story.get("unfinished") or []

        count = page.count
        page.scroll_to(screens(count * ROW_HEIGHT, 0, 10))
        page.wait_reported()
        first, last = page.visible_range()
        assert first == 0
        page.wait_filtered(first, last, allow_failed=True)
        photos = slow_server.photos()
        assert [i for i in unfinished if photos[i]["state"] not in ("filtered", "failed")] == []


# ---------------------------------------------------------------------------------------------- 5


def find_failed_row(server) -> dict:
    """A row whose photo failed; if none has failed yet, a non-page viewer (POST /api/viewers)
    walks the list a window at a time, reading its event stream, until one does."""
    failed = [p for p in server.photos() if p["state"] == "failed"]
    if failed:
        return failed[0]
    viewer = new_viewer(server)
    stream = EventStream(server, viewer, timeout=WORK_TIMEOUT)
    try:
        _, snapshot = stream.wait_for(lambda name, _: name == "snapshot", "the snapshot")
        # The snapshot covers the rows near the viewport; the others arrive as photo events as it moves.
        listed = json.loads(snapshot)
        photos = {p["index"]: p for p in listed["photos"]}
        count = listed.get("count", len(photos))
        state = lambda i: photos.get(i, {}).get("state", "new")  # noqa: E731
        window = 12
        for start in range(0, count, window):
            end = min(count - 1, start + window - 1)
            status, body = server.request("POST", "/api/viewport",
                                          {"viewer": viewer, "scrolling": False, "first": start, "last": end})
            assert status == 204, (status, body)

            def settled(name, data):
                if name == "photo":
                    photo = json.loads(data)
                    photos.setdefault(photo["index"], {}).update(photo)
                return all(state(i) not in ("new", "downloading") for i in range(start, end + 1))

            if not settled("", ""):
                stream.wait_for(settled, f"rows {start}...{end} all downloaded or failed")
            failed = [photos[i] for i in range(start, end + 1) if state(i) == "failed"]
            if failed:
                return failed[0]
    finally:
        stream.close()
    pytest.fail("no photo failed in the whole list (the sample origin should have mis-named entries)",
                pytrace=False)


def test_failed_photo_shows_reason(server, driver):
    failed = find_failed_row(server)
    index = failed["index"]
    assert failed["reason"], failed

    page = Page(driver, server).open()
    page.scroll_to([max(0, (index - 3) * ROW_HEIGHT)])
    page.wait_reported()
    first, last = page.visible_range()
    assert first <= index <= last

    row_css = f'#list .row[data-index="{index}"]'
    wait_for(driver, lambda d: d.execute_script(f"""
        const row = document.querySelector('{row_css}'), img = row.querySelector('img.thumb');
        return row.dataset.state === 'failed' && (img.getAttribute('src') || '').includes('failed.svg')
               && img.complete && img.naturalWidth > 0;
    """), 30, f"row {index} never showed the failed image")
    row = driver.find_element("css selector", row_css)
    assert row.find_element("css selector", ".status").text == "Failed to load"
    reason = row.find_element("css selector", ".reason")
    assert reason.is_displayed()
    assert reason.text == failed["reason"]
    assert row.find_element("css selector", "img.thumb").get_attribute("alt")

    # "Try again" asks the server to forget the failure: the photo is worked on again (and, still
    # missing at the origin, fails again), seen on another viewer's event stream.
    second = new_viewer(server)
    stream = EventStream(server, second, timeout=WORK_TIMEOUT)
    try:
        stream.wait_for(lambda name, _: name == "snapshot", "the snapshot")
        # Its rows are the failed row's, as a viewer's are: a snapshot sent again covers that row.
        status, body = server.request("POST", "/api/viewport", {"viewer": second, "scrolling": False, "first": index, "last": index})
        assert status == 204, (status, body)
        retry = row.find_element("css selector", "[data-action='retry']")
        assert retry.is_displayed() and retry.text == "Try again"
        # Inside its 80 px row, above the row's border (the next row does not cover it).
        inside = page.js("""
            const row = arguments[0].getBoundingClientRect(), meta = arguments[0].querySelector('.meta').getBoundingClientRect();
            return meta.top >= row.top && meta.bottom <= row.bottom - 1;
        """, row)
        assert inside, "the failed row's text and button overflow the row"
        failed_before = server.stats()["downloads"]["failed"]
        retry.click()
        seen = []

        def back_to_failed(name, data):
            # A snapshot sent again mid-stream (the stream fell behind) stands for the events it
            # replaced: failed there, after the server failed one more download, is failed again.
            photos = json.loads(data).get("photos", []) if name == "snapshot" else [json.loads(data)] if name == "photo" else []
            seen.extend(p["state"] for p in photos if p.get("index") == index and "state" in p)
            if not seen or seen[-1] != "failed":
                return False
            return any(state != "failed" for state in seen) or (
                name == "snapshot" and server.stats()["downloads"]["failed"] > failed_before)

        try:
            stream.wait_for(back_to_failed, f"row {index} retried and failed again")
        except BaseException:
            # Say what was seen: the stream's states, the page's row and its notice (a refused retry).
            print(f"the second viewer saw row {index} as {seen}; the page says:", page.js("""
                const row = document.querySelector(arguments[0]);
                return [row.dataset.state, row.querySelector('.status').textContent,
                        document.getElementById('banner').textContent];""", row_css))
            raise
    finally:
        stream.close()


def test_first_screen_paints_before_the_scripts_run(server, driver):
    """The server renders the first screen with its images: with every script of the page blocked,
    the rows of `?row=` show their sepia thumbnails, and a failed photo its failed image and reason."""
    failed = find_failed_row(server)
    first = max(0, failed["index"] - 3)
    page = Page(driver, server).open(f"/?row={first + 1}")
    page.wait_filtered(first, first + 5, allow_failed=True)  # the server has them all done
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*.js"]})
    try:
        driver.get(server.base_url + f"/?row={first + 1}")
        wait_for(driver, lambda d: d.execute_script("return document.readyState === 'complete'"), 30,
                 "the page without its scripts never finished loading")
        assert driver.execute_script("return window.classicPhotos === undefined"), "the scripts ran"
        rows = {r["index"]: r for r in Page(driver, server).rows(first, first + 5)}
    finally:
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    photos = server.photos()
    for index, row in rows.items():
        assert not row.get("missing") and row["state"] == photos[index]["state"], (row, photos[index])
        assert row["complete"] and row["naturalWidth"] > 0, row
        if row["state"] == "failed":
            assert "failed.svg" in row["src"] and row["reason"] == photos[index]["reason"], row
        else:
            assert row["src"].endswith(f"/photos/{index}/thumbnail"), row
    assert rows[failed["index"]]["state"] == "failed", rows


# ---------------------------------------------------------------------------------------------- 6


def new_region(photos: list[dict], start: int, length: int) -> int:
    for first in range(start, len(photos) - length):
        if all(p["state"] == "new" for p in photos[first:first + length]):
            return first
    pytest.fail(f"no {length} untouched rows from row {start} on", pytrace=False)


def test_two_windows_are_both_served(start_server, make_driver):
    # A server of its own: the shared one's rows are worked on by every test before this one (ten tabs
    # and a lab among them), which may leave no untouched region to scroll to.
    server = start_server("two-windows", photo_count=300, latency_ms=100, bandwidth=2_000_000)
    photos = server.photos()
    length = 24
    a = new_region(photos, len(photos) // 3, length)
    b = new_region(photos, a + length + 20, length)

    pages = [Page(make_driver(), server).open(), Page(make_driver(), server).open()]
    viewers = [page.js("return classicPhotos.viewer") for page in pages]
    assert viewers[0] != viewers[1]
    for page, region in zip(pages, (a, b)):
        page.scroll_to(screens(0, (region + 4) * ROW_HEIGHT, 6))
    ranges = []
    for page in pages:
        page.wait_reported()
        ranges.append(page.visible_range())
    assert ranges[0][1] < ranges[1][0], ranges
    for page, (first, last) in zip(pages, ranges):
        page.wait_filtered(first, last, allow_failed=True)
    photos = server.photos()
    for first, last in ranges:
        assert all(photos[i]["state"] in ("filtered", "failed") for i in range(first, last + 1))
    assert server.stats()["viewers"] >= 2


# ---------------------------------------------------------------------------------------------- 7


def test_screenshot(server, driver):
    page = Page(driver, server).open()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    wait_for(driver, lambda d: d.execute_script("return !!classicPhotos.stats"), 15,
             "the panel never got the server's totals")
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "screenshot.png"
    assert driver.save_screenshot(str(path))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 1000 and height >= 600, (width, height)


@pytest.mark.parametrize("size", [(1366, 800), (390, 844)], ids=["desktop", "phone"])
def test_photo_viewer_opens_closes_and_gives_focus_back(server, driver, size):
    """A click on a sepia row shows the original and the sepia image with a before/after slider;
    Escape closes it and focus goes back to the list, on that row."""
    from selenium.webdriver.common.keys import Keys

    driver.set_window_size(*size)
    page = Page(driver, server).open()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    index = next(r["index"] for r in page.rows(first, last) if r["state"] == "filtered")
    # The list is one tab stop: focus it, move to the row with the arrow keys, Enter opens it.
    listbox = driver.find_element("id", "list")
    page.js("arguments[0].focus()", listbox)
    for _ in range(index - page.js("return classicPhotos.activeRow")):
        listbox.send_keys(Keys.ARROW_DOWN)
    assert page.js("return classicPhotos.activeRow") == index
    listbox.send_keys(Keys.ENTER)

    wait_for(driver, lambda d: d.execute_script("""
        const v = document.getElementById('viewer'), imgs = v.querySelectorAll('img');
        return v.open && [...imgs].every((i) => i.complete && i.naturalWidth > 0);
    """), WORK_TIMEOUT, "the viewer never showed both images")
    facts = page.js("""
        const v = document.getElementById('viewer'), r = v.getBoundingClientRect();
        return { title: document.getElementById('viewer-title').textContent,
                 size: v.querySelector('[data-role="size"]').textContent,
                 fits: r.left >= 0 && r.right <= innerWidth + 1 && r.bottom <= innerHeight + 1 };
    """)
    assert facts["title"] == page.js(f"return document.querySelector('#list .row[data-index=\"{index}\"] .name').textContent")
    assert "×" in facts["size"], facts
    assert facts["fits"], facts
    ARTIFACTS.mkdir(exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / f"viewer-{size[0]}x{size[1]}.png"))

    slider = driver.find_element("css selector", '#viewer [data-role="slider"]')
    page.js("arguments[0].value = 20; arguments[0].dispatchEvent(new Event('input'));", slider)
    assert page.js("return document.querySelector('#viewer [data-role=\"compare\"]').style.getPropertyValue('--split')") == "20%"

    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(driver, lambda d: not d.execute_script("return document.getElementById('viewer').open"), 10,
             "Escape did not close the viewer")
    assert page.js("return document.activeElement === arguments[0]", listbox)
    assert page.js("return classicPhotos.activeRow") == index
