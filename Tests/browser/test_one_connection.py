"""One event connection per browser, in a real headless Chromium over plain HTTP/1.1: ten list tabs
and a five-lane lab at once (six connections a host for all of them), a hidden tab that gives its
work up and picks up when shown, the lab's browser lane on six connections of its own, a failed
report sent again, and every lane's time to visible as long as the page's own Resource Timing shows."""
from __future__ import annotations

import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import test_lab as lab_page

WORK_TIMEOUT = float(os.environ.get("CLASSIC_PHOTOS_WORK_TIMEOUT", "120"))
TRACE_TIMEOUT = float(os.environ.get("CLASSIC_PHOTOS_LAB_TIMEOUT", "180"))
FINAL = ("filtered", "failed")


def wait_for(driver, condition, timeout: float, message: str):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition, message)


def open_list(driver, server, path: str = "/"):
    driver.get(server.base_url + path)
    wait_for(driver, lambda d: d.execute_script("return !!(window.classicPhotos && classicPhotos.count > 0)"), 60,
             f"{path}: the page never built its rows (no snapshot: its events never came)")


def visible_rows_settled(driver) -> bool:
    return driver.execute_script("""
        const { first, last } = classicPhotos.visibleRange();
        for (let i = first; i <= last; i += 1) if (!['filtered', 'failed'].includes(classicPhotos.rowState(i))) return false;
        return last >= first;
    """)


def open_lab(driver, server, lanes: tuple[str, ...], latency_ms: int = 20, bandwidth: int = 20_000_000):
    """Opens /lab and starts a cold run of exactly `lanes` on the given network."""
    lab_page.open_lab(driver, server, latency_ms=latency_ms, bandwidth=bandwidth, lanes=lanes, start=True)
    got = driver.execute_script("return classicPhotosLab.lanes.map(l => l.strategy)")
    assert got == list(lanes), got


def lab_lanes(driver) -> list[dict]:
    return driver.execute_script("return classicPhotosLab.lanes")


def first_stops_settled(driver) -> bool:
    lanes = lab_lanes(driver)
    return bool(lanes) and all(lane["stops"] and lane["stops"][0]["ms"] is not None for lane in lanes)


def play(driver, trace: str):
    driver.find_element(By.CSS_SELECTOR, f"[data-trace={trace}]").click()
    wait_for(driver, lambda d: d.execute_script("return document.querySelector('.lab-summary').dataset.ready === 'true'"),
             TRACE_TIMEOUT, f"the {trace} trace never finished (no summary)")


def test_ten_list_tabs_and_a_five_lane_lab_all_work_in_one_browser(driver, server):
    # Given ten tabs of the list, each at rows of its own, in one browser (six connections to the host)
    tabs = []
    for number in range(10):
        if number:
            driver.switch_to.new_window("tab")
        open_list(driver, server, f"/?row={1 + 25 * number}")
        tabs.append(driver.current_window_handle)
    # And the lab with all five lanes in an eleventh
    driver.switch_to.new_window("tab")
    open_lab(driver, server, ("eager", "visible", "prefetch", "serial", "browser"))

    # Then the lab's lanes all travel on the page's one stream, and each shows its first stop's rows
    assert all(lane["shared"] for lane in lab_lanes(driver) if lane["strategy"] != "browser"), lab_lanes(driver)
    wait_for(driver, first_stops_settled, WORK_TIMEOUT, "a lab lane never showed its first stop's rows")
    # And every tab, shown in turn, has its events on the shared stream and its visible rows settle
    for number, handle in enumerate(tabs):
        driver.switch_to.window(handle)
        assert driver.execute_script("return classicPhotos.sharedStream"), f"tab {number + 1} has a stream of its own"
        wait_for(driver, lambda d: visible_rows_settled(d), WORK_TIMEOUT,
                 f"tab {number + 1}'s visible rows never settled")
        assert driver.execute_script("return classicPhotos.visibleRange().first") == 25 * number


def test_a_hidden_tab_gives_its_work_up_and_picks_up_where_it_was_when_shown(driver, slow_server):
    # Given a tab at row 150 of a slow origin, its rows' downloads under way
    open_list(driver, slow_server, "/?row=150")
    tab = driver.current_window_handle
    wait_for(driver, lambda d: slow_server.stats()["downloads"]["executing"] > 0, 30, "no download ever started")
    before = driver.execute_script("return classicPhotos.visibleRange()")
    cancelled = slow_server.stats()["downloads"]["cancelled"]

    # When another tab is brought to the front (this one is hidden)
    driver.switch_to.new_window("tab")
    driver.get("about:blank")

    # Then the server gives its work up: nothing downloads any more, and what ran was cancelled
    wait_for(driver, lambda d: slow_server.stats()["downloads"]["executing"] == 0
             and slow_server.stats()["downloads"]["pending"] == 0, 30, "the hidden tab's downloads went on")
    assert slow_server.stats()["downloads"]["cancelled"] > cancelled

    # And shown again, it is where it was and its rows settle
    driver.switch_to.window(tab)
    assert not driver.execute_script("return classicPhotos.hidden")
    assert driver.execute_script("return classicPhotos.visibleRange()") == before
    wait_for(driver, lambda d: visible_rows_settled(d), WORK_TIMEOUT, "the shown tab's rows never settled")


def test_the_browser_lane_has_six_fetches_in_flight_on_connections_of_its_own(driver, server):
    # Given a lab with the browser lane on a slow network, so its fetches overlap
    open_lab(driver, server, ("prefetch", "browser"), latency_ms=300, bandwidth=400_000)
    wait_for(driver, first_stops_settled, WORK_TIMEOUT, "the first stop never settled")

    # Then its images came from a host name of their own, over HTTP/1.1, six at once at the busiest
    timings = driver.execute_script("return classicPhotosLab.browserTimings()")
    assert timings, "no Resource Timing for the browser lane's images"
    page_host = server.base_url.split("//", 1)[1].split(":", 1)[0]
    assert all(f"//{page_host}:" not in entry["name"] for entry in timings), timings[0]["name"]
    # (A photo the origin refuses, as some are on purpose, is answered without Timing-Allow-Origin:
    # the browser hides its timings, so it is left out.)
    timings = [entry for entry in timings if entry["requestStart"] > 0]
    assert len(timings) >= 6, timings
    assert {entry["protocol"] for entry in timings} == {"http/1.1"}, {entry["protocol"] for entry in timings}
    edges = sorted([(entry["requestStart"], 1) for entry in timings] + [(entry["responseEnd"], -1) for entry in timings])
    in_flight = busiest = 0
    for _, step in edges:
        in_flight += step
        busiest = max(busiest, in_flight)
    assert busiest == 6, f"the browser lane had at most {busiest} fetches in flight"


def test_a_report_that_fails_is_sent_again(driver, server):
    # Given a lab whose only server lane loads nothing until its viewer reports its rows
    open_lab(driver, server, ("prefetch",))
    # And the page's next viewport report fails (as a dropped connection does)
    driver.execute_script("""
        const send = window.fetch;
        window.failedOnPurpose = 0;
        window.fetch = (resource, options) => {
            if (String(resource).includes('/api/viewport') && window.failedOnPurpose === 0) {
                window.failedOnPurpose += 1;
                return Promise.reject(new TypeError('failed on purpose'));
            }
            return send(resource, options);
        };
    """)

    # When the lab runs again and its lanes are scrolled (its first report is the one that fails)
    before = driver.execute_script("return classicPhotosLab.id")
    driver.find_element(By.ID, "run").click()
    wait_for(driver, lambda d: d.execute_script("return classicPhotosLab.id") not in (None, before), 30,
             "the lab never ran again")
    lab_page.start_lanes(driver)
    wait_for(driver, lambda d: d.execute_script("return window.failedOnPurpose") == 1, 30, "no report was made")

    # Then the report is sent again and the stop's rows show
    wait_for(driver, first_stops_settled, WORK_TIMEOUT, "the failed report was never sent again")
    reports = lab_lanes(driver)[0]["reports"]
    assert reports["errors"] == 1 and reports["acknowledged"] >= 1, reports


def test_every_lanes_time_to_visible_is_at_least_what_resource_timing_shows(driver, server):
    # Given a server lane and the browser lane
    open_lab(driver, server, ("prefetch", "browser"), latency_ms=100, bandwidth=2_000_000)

    # When the fast flick to the bottom plays
    play(driver, "flick")

    # Then no stop is lost: every lane has the same stops, each timed, not done or abandoned
    lanes = lab_lanes(driver)
    assert len({len(lane["stops"]) for lane in lanes}) == 1 and lanes[0]["stops"], lanes
    for lane in lanes:
        for stop in lane["stops"]:
            assert stop["ms"] is not None or stop["notDone"] or stop["abandoned"], (lane["strategy"], stop)
    # And each stop's time reaches past the end of every fetch of its rows' final images
    entries = driver.execute_script("""
        return performance.getEntriesByType('resource').map(e => ({ name: e.name, responseEnd: e.responseEnd }));
    """)
    viewer = driver.execute_script("return fetch('/api/labs/' + classicPhotosLab.id).then(r => r.json())")
    prefetch_viewer = viewer["lanes"][0]["viewer"]
    browser = {entry["index"]: entry["responseEnd"] for entry in driver.execute_script("return classicPhotosLab.browserTimings()")}
    checked = 0
    for lane in lanes:
        for stop in lane["stops"]:
            if stop["ms"] is None:
                continue
            for row in range(stop["first"], stop["last"] + 1):
                if lane["strategy"] == "browser":
                    ends = [browser[row]] if row in browser else []
                else:
                    ends = [e["responseEnd"] for e in entries
                            if f"/photos/{row}/thumbnail?viewer={prefetch_viewer}" in e["name"]]
                assert ends, f"{lane['strategy']} row {row}: no Resource Timing for its image"
                # Fetched before the stop, or done within the stop's time
                assert max(ends) - stop["at"] <= stop["ms"] + 1, (lane["strategy"], row, stop, max(ends))
                checked += 1
    assert checked > 0
    summary = driver.find_element(By.CSS_SELECTOR, "#summary tbody").text
    assert "prefetch" in summary and "browser" in summary, summary
