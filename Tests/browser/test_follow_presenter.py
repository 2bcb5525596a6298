"""Follow a presenter (issue 37), in two browsers against a real server: the presenter's share link opens
a follower's page where the presenter is; the follower's list follows the presenter's jump with the
presenter's rows at the top, and its wheel on the way as well as at its stop, and sends no viewport
report while it follows; a wheel of its own breaks
away, "Follow again" brings it back to where the presenter is now; the presenter stopping is told."""
from __future__ import annotations

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

import gestures
from test_page import Page, wait_for


def click(driver, selector: str) -> None:
    """Clicks the bar's control, found again if the bar was drawn anew between finding and clicking
    (it redraws as its count of followers changes)."""
    WebDriverWait(driver, 10, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: d.find_element("css selector", selector).click() or True)

STATE = "return classicPhotos.presentation"


def jump(page: Page, fraction: float) -> int:
    """A shift-click in `page`'s scrollbar track at `fraction`; the first row on screen once the page has
    moved there and the server has its rows (waiting only for the report could read the rows before the move)."""
    before = page.visible_range()[0]
    gestures.track_click(page.driver, "#list", fraction)
    wait_for(page.driver, lambda d: d.execute_script("return classicPhotos.visibleRange().first") != before, 30,
             "the jump never moved the list")
    page.wait_reported()
    return page.visible_range()[0]


def follower_open(driver, link: str):
    driver.get(link)
    wait_for(driver, lambda d: d.execute_script(
        "return !!(window.classicPhotos && classicPhotos.count > 0 && classicPhotos.presentation.role === 'follower')"), 60,
        "the follow link never opened a following page")


def test_a_follower_follows_the_presenters_jump_breaks_away_and_follows_again(start_server, make_driver):
    server = start_server("follow", photo_count=300, latency_ms=40, bandwidth=20_000_000)
    presenter_driver, follower_driver = make_driver(), make_driver()

    # Given a presenter who opened the page with ?present, and its share link
    presenter = Page(presenter_driver, server).open("/?present")
    wait_for(presenter_driver, lambda d: d.execute_script(STATE)["link"], 30, "presenting never started")
    link = presenter.js(STATE)["link"]
    assert "follow=" in link and presenter.js("return classicPhotos.viewer") not in link

    # When a second browser opens it, it follows, and the presenter sees one follower
    follower_open(follower_driver, link)
    follower = Page(follower_driver, server)
    wait_for(presenter_driver, lambda d: d.execute_script(STATE)["followers"] == 1, 30, "the presenter never saw its follower")
    assert follower.js(STATE)["following"] is True

    # When the presenter jumps half-way down the list (a shift-click in its scrollbar's track)
    first = jump(presenter, 0.5)
    assert first > 100
    # Then the follower's list has the presenter's rows at its top, filled in, without a report of its own
    wait_for(follower_driver, lambda d: d.execute_script("return classicPhotos.visibleRange().first") == first, 30,
             f"the follower never moved to the presenter's row {first}")
    follower.wait_filtered(first, first + 2, allow_failed=True)
    assert follower.js("return classicPhotos.reports.sent") == 0
    moved_at = follower.js("return Date.now() - (performance.now() - classicPhotos.presentation.moves.at(-1))")
    reported_at = presenter.js("return Date.now() - (performance.now() - classicPhotos.reports.lastAcknowledgedAt)")
    print(f"presenter's report acknowledged -> follower moved: {moved_at - reported_at:.0f} ms (wall clocks of two browsers)")

    # When the presenter turns its wheel through many screens (a person's scroll, which reports no rows
    # until it stops), the follower moves with it on the way, not only at the stop
    trail_before = len(follower.js(STATE)["trail"])
    px, py = gestures.center_of(presenter_driver, "#list")
    gestures.wheel(presenter_driver, px, py, notches=16, interval_s=0.06)
    presenter.wait_reported()
    stop = presenter.visible_range()[0]
    wait_for(follower_driver, lambda d: d.execute_script(STATE)["trail"][-1]["scrolling"] is False
             and d.execute_script("return classicPhotos.visibleRange().first") == stop, 30,
             f"the follower never stopped where the presenter did (row {stop})")
    on_the_way = [m for m in follower.js(STATE)["trail"][trail_before:] if m["scrolling"]]
    assert len({m["first"] for m in on_the_way} - {first}) >= 2, f"the follower moved only at the stop: {on_the_way}"
    assert all(first <= m["first"] <= stop for m in on_the_way), (first, on_the_way, stop)
    assert follower.js("return classicPhotos.reports.sent") == 0

    # When the follower turns its own wheel, it goes its own way and reports its own rows
    x, y = gestures.center_of(follower_driver, "#list")
    gestures.wheel(follower_driver, x, y, notches=3, interval_s=0.05)
    wait_for(follower_driver, lambda d: d.execute_script(STATE)["following"] is False, 10, "the wheel did not break away")
    wait_for(presenter_driver, lambda d: d.execute_script(STATE)["followers"] == 0, 30,
             "the presenter still counts a follower that scrolled away")
    assert follower.js("return classicPhotos.reports.sent") > 0

    # When it follows again, it is where the presenter is now
    now_first = jump(presenter, 0.2)
    click(follower_driver, "#presentation-bar [data-action=follow-again]")
    wait_for(follower_driver, lambda d: d.execute_script("return classicPhotos.visibleRange().first") == now_first, 30,
             f"following again did not go to the presenter's row {now_first}")

    # When the presenter stops presenting, the follower is told and keeps its place
    click(presenter_driver, "#presentation-bar [data-action=stop-presenting]")
    wait_for(follower_driver, lambda d: d.execute_script(STATE)["ended"] is True, 30, "the follower was never told it ended")
    assert follower.visible_range()[0] == now_first
    assert "ended" in follower_driver.find_element("css selector", "#presentation-bar").text


def test_a_wrong_follow_link_is_a_page_saying_so_not_someone_elses_list(start_server, driver):
    server = start_server("follow-wrong", photo_count=30, latency_ms=20, bandwidth=20_000_000)
    driver.get(server.base_url + "/?follow=" + "0" * 32)
    wait_for(driver, lambda d: "No such presentation" in d.find_element("css selector", "h1").text, 30,
             "a wrong follow code did not get a page saying so")
    assert driver.execute_script("return document.getElementById('list')") is None


def test_a_phone_follows_a_laptops_jump(start_server, make_driver):
    server = start_server("follow-phone", photo_count=300, latency_ms=40, bandwidth=20_000_000)
    presenter_driver, phone_driver = make_driver(), make_driver()
    gestures.laptop(presenter_driver)
    gestures.phone(phone_driver)
    presenter = Page(presenter_driver, server).open("/")
    presenter_driver.find_element("css selector", "#present-button").click()
    wait_for(presenter_driver, lambda d: d.execute_script(STATE)["link"], 30, "the Present button never gave a link")
    follower_open(phone_driver, presenter.js(STATE)["link"])
    follower = Page(phone_driver, server)
    wait_for(presenter_driver, lambda d: d.execute_script(STATE)["followers"] == 1, 30, "the presenter never saw the phone")

    first = jump(presenter, 0.7)
    wait_for(phone_driver, lambda d: d.execute_script("return classicPhotos.visibleRange().first") == first, 30,
             f"the phone never moved to the presenter's row {first}")
    follower.wait_filtered(first, first + 2, allow_failed=True)
    # The bar says whom it follows and how to stop, inside the phone's screen
    bar = follower.js("const r = document.getElementById('presentation-bar').getBoundingClientRect();"
                      "return { top: r.top, bottom: r.bottom, width: r.width, height: innerHeight, text: document.getElementById('presentation-bar').innerText };")
    assert "Following" in bar["text"] and "Stop following" in bar["text"], bar
    assert bar["bottom"] <= bar["height"] + 1 and bar["width"] <= 391, bar
    assert follower.js("return classicPhotos.reports.sent") == 0


def test_a_follower_follows_a_readers_notches_and_a_phones_fling(start_server, make_driver):
    server = start_server("follow-fling", photo_count=300, latency_ms=40, bandwidth=20_000_000)
    presenter_driver, follower_driver = make_driver(), make_driver()
    gestures.phone(presenter_driver)
    presenter = Page(presenter_driver, server).open("/?present")
    wait_for(presenter_driver, lambda d: d.execute_script(STATE)["link"], 30, "presenting never started")
    follower_open(follower_driver, presenter.js(STATE)["link"])
    follower = Page(follower_driver, server)
    wait_for(presenter_driver, lambda d: d.execute_script(STATE)["followers"] == 1, 30, "the presenter never saw its follower")

    # When the presenter reads on, a wheel notch at a time, the follower's list moves with each step
    presenter_driver.execute_script("document.getElementById('list').focus({ preventScroll: true })")
    x, y = gestures.center_of(presenter_driver, "#list")
    for _ in range(3):
        before = presenter.visible_range()[0]
        gestures.wheel(presenter_driver, x, y, notches=1, interval_s=0.05)
        # (the notch's scroll comes after its event is dispatched: wait for it, then for its report)
        wait_for(presenter_driver, lambda d: d.execute_script("return classicPhotos.visibleRange().first") > before, 10,
                 "a notch did not move the presenter's list")
        presenter.wait_reported()
        now = presenter.visible_range()[0]
        wait_for(follower_driver, lambda d: d.execute_script("return classicPhotos.visibleRange().first") == now, 30,
                 f"the follower never read on to row {now}")

    # When the presenter flings the list with a finger, the follower ends where the fling stopped
    start = presenter.visible_range()[0]
    gestures.fling(presenter_driver, 195, 600, 400)
    wait_for(presenter_driver, lambda d: d.execute_script("return classicPhotos.visibleRange().first") > start + 3, 10,
             f"the fling did not move the presenter's list from row {start}")
    presenter.wait_reported()
    stop = presenter.visible_range()[0]
    wait_for(follower_driver, lambda d: d.execute_script("return classicPhotos.visibleRange().first") == stop, 30,
             f"the follower never followed the fling to row {stop}")
    follower.wait_filtered(stop, stop + 2, allow_failed=True)
    assert follower.js("return classicPhotos.reports.sent") == 0
