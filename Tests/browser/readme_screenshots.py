"""Takes the README's screenshots (docs/*.png) of the page and the lab as they are, with headless
Chromium against a real server on the sample photos:

    python3 Tests/browser/readme_screenshots.py        # after `swift build`

docs/screenshot.png  the page at 1366x800 after a scroll, rows sepia, the panel at work
docs/viewer.png      the photo viewer, the split moved by a drag
docs/phone.png       the page at 390x844 with its introduction
docs/lab.png         the lab after the impatient trace: cancellations in the lanes and the summary
docs/presenting.png  a presenter's page (1366x800) with its share link and one person following
docs/following.png   that follower, a phone, at the presenter's rows with the bar saying whom it follows
"""
from __future__ import annotations

import sys
import tempfile

from selenium.common.exceptions import TimeoutException
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import REPO, Server, new_driver, own_cache_dir  # noqa: E402
from test_lab import TRACE_TIMEOUT, open_lab  # noqa: E402
from test_page import ROW_HEIGHT, Page, after_frames, screens, wait_for  # noqa: E402
from test_photo_viewer import drag, open_viewer  # noqa: E402

DOCS = REPO / "docs"


def viewport(driver, width: int, height: int):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def settled(page: Page):
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    after_frames(page.driver, 4)


def main():
    workdir = Path(tempfile.mkdtemp(prefix="classic-photos-screenshots-"))
    server = Server(workdir, own_cache_dir(workdir, "docs"), "docs", photo_count=300, latency_ms=150, bandwidth=2_000_000)
    driver = None
    try:
        server.wait_ready()
        driver = new_driver()
        viewport(driver, 390, 844)
        page = Page(driver, server).open()
        settled(page)
        driver.save_screenshot(str(DOCS / "phone.png"))

        viewport(driver, 1366, 800)
        page.js("localStorage.setItem('classicPhotos.introDismissed', '1')")
        page.open()
        settled(page)
        page.scroll_to(screens(0, 40 * ROW_HEIGHT, 8), interval_ms=60)
        page.wait_reported()
        wait_for(driver, lambda d: d.execute_script("return classicPhotos.timeline.items > 20"), 60, "no operations")
        # Mid-work: the rows on screen filling in, the queues busy.
        # (A picture, not a test: when the work is already done, the picture shows it done.)
        try:
            wait_for(driver, lambda d: d.execute_script("return (classicPhotos.queues.download || {}).executing > 0"), 10,
                     "no download running")
        except TimeoutException:
            pass
        driver.save_screenshot(str(DOCS / "screenshot.png"))

        settled(page)
        open_viewer(page)
        drag(driver, driver.find_element("css selector", '#viewer [data-role="compare"]'), 0.5, 0.35)
        after_frames(driver, 4)
        driver.save_screenshot(str(DOCS / "viewer.png"))

        # Presenting: the presenter's share bar, and a phone following it.
        page.js("history.replaceState(null, '', '/')")
        page.open()
        driver.find_element("css selector", "#present-button").click()
        wait_for(driver, lambda d: d.execute_script("return classicPhotos.presentation.link"), 30, "no follow link")
        follower = new_driver()
        try:
            follower.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                     {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
            follower.get(page.js("return classicPhotos.presentation.link"))
            wait_for(driver, lambda d: d.execute_script("return classicPhotos.presentation.followers") == 1, 30, "no follower")
            page.scroll_to(screens(0, 120 * ROW_HEIGHT, 6), interval_ms=60)
            page.wait_reported()
            first, _ = page.visible_range()
            wait_for(follower, lambda d: d.execute_script("return classicPhotos.visibleRange().first") == first, 30,
                     "the follower did not follow")
            settled(page)
            Page(follower, server).wait_filtered(first, first + 3, allow_failed=True)
            after_frames(follower, 4)
            driver.save_screenshot(str(DOCS / "presenting.png"))
            follower.save_screenshot(str(DOCS / "following.png"))
        finally:
            follower.quit()

        viewport(driver, 1366, 1400)
        open_lab(driver, server, latency_ms=150, bandwidth=400_000, add=("visible",))
        driver.find_element("css selector", "[data-trace=impatient]").click()
        wait_for(driver, lambda d: d.execute_script(
            "return document.querySelector('.lab-summary').dataset.ready === 'true'"), TRACE_TIMEOUT, "no summary")
        driver.execute_script("window.scrollTo(0, 0)")
        after_frames(driver, 4)
        driver.save_screenshot(str(DOCS / "lab.png"))
    finally:
        if driver:
            driver.quit()
        server.stop()


if __name__ == "__main__":
    main()
