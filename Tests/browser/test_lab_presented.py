"""The lab presented (issue 37), in two browsers against a real server: a presenter runs a lab trace while
presenting; the follower's page shows the same run (no lab id of its own, the presenter's lanes and the
same server figures, its lanes watching the presenter's and reporting nothing), its lanes scroll where the
presenter's do, a new run of the presenter's is followed, and stopping presenting tells the follower, which
keeps what it shows. A wrong follow link is a page saying so."""
from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from gestures import wheel
from test_lab import TRACE_TIMEOUT, wait_for

PRESENTATION = "return classicPhotosLab.presentation"
FIGURES = ("bytesDownloaded", "downloads", "filtered", "transfersAborted", "operationsCancelled")


def open_presenter(driver, server) -> str:
    """Opens /lab?present and returns the share link once presenting started on its first run."""
    driver.get(server.base_url + "/lab?present")
    wait_for(driver, lambda d: d.execute_script(PRESENTATION)["link"], 30, "presenting never started")
    return driver.execute_script(PRESENTATION)["link"]


def open_follower(driver, link: str, run: int = 1) -> None:
    driver.get(link)
    wait_for(driver, lambda d: d.execute_script(
        "const p = classicPhotosLab.presentation;"
        f"return p.role === 'follower' && p.run === {run} && classicPhotosLab.lanes.length > 0"), 30,
        "the follow link never showed the presenter's lanes")


def scroll_lanes(driver, delta: float) -> int:
    """A wheel of three notches over the lanes, and its stop; the row at the lanes' top then."""
    stops = driver.execute_script("return classicPhotosLab.lanes[0].stops.length")
    x, y = driver.execute_script("""
        const r = document.querySelector('.lane-scroller').getBoundingClientRect();
        return [r.left + r.width / 2, (Math.max(r.top, 0) + Math.min(r.bottom, innerHeight)) / 2];
    """)
    wheel(driver, x, y, notches=3, interval_s=0.05, delta=delta)
    wait_for(driver, lambda d: d.execute_script("return classicPhotosLab.lanes[0].stops.length") > stops, 30,
             "the lanes' scroll never stopped")
    return driver.execute_script("return classicPhotosLab.firstRow")


def follower_view(server, driver) -> dict:
    state = driver.execute_script(PRESENTATION)
    key = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/followers/')).pop()")
    assert key, "the follower's page never asked for its view"
    status, view = server.request("GET", f"/api/lab-presentations/{state['code']}/followers/{key.rsplit('/', 1)[1]}")
    assert status == 200, view
    return view


def test_a_follower_watches_the_presenters_lab_run_live_and_is_told_when_it_stops(start_server, make_driver):
    server = start_server("lab-presented", photo_count=120, latency_ms=30, bandwidth=5_000_000)
    presenter, follower = make_driver(), make_driver()

    # Given a presenter presenting its lab, and a follower who opened the share link
    link = open_presenter(presenter, server)
    lab = presenter.execute_script("return classicPhotosLab.id")
    assert "/lab?follow=" in link and lab not in link
    open_follower(follower, link)
    wait_for(presenter, lambda d: d.execute_script(PRESENTATION)["followers"] == 1, 30, "the presenter never saw its follower")
    # Then the follower runs no lab of its own: the presenter's lanes, each watched by a viewer of its own
    assert follower.execute_script("return classicPhotosLab.id") is None
    lanes = {d: d.execute_script("return classicPhotosLab.lanes") for d in (presenter, follower)}
    assert [lane["strategy"] for lane in lanes[follower]] == [lane["strategy"] for lane in lanes[presenter]] == ["eager", "prefetch"]
    assert not {lane["viewer"] for lane in lanes[follower]} & {lane["viewer"] for lane in lanes[presenter]}
    assert not follower.find_element(By.ID, "lab-setup").is_displayed()

    # When the presenter plays the impatient trace (scrolls and jumps, moving on before the lanes are done)
    presenter.find_element(By.CSS_SELECTOR, "[data-trace=impatient]").click()
    # Then the follower's lanes move where the presenter's are, stop after stop, while it plays
    seen = set()
    def follows(_):
        top = presenter.execute_script("return classicPhotosLab.firstRow")
        if top and follower.execute_script("return classicPhotosLab.firstRow") == top:
            seen.add(top)
        return len(seen) >= 3
    wait_for(presenter, follows, TRACE_TIMEOUT, "the follower's lanes never stood where the presenter's were at three stops")
    wait_for(presenter, lambda d: d.execute_script("return document.querySelector('.lab-summary').dataset.ready === 'true'"),
             TRACE_TIMEOUT, "the trace never finished")
    top = presenter.execute_script("return classicPhotosLab.firstRow")
    wait_for(follower, lambda d: d.execute_script("return classicPhotosLab.firstRow") == top, 30,
             f"the follower's lanes never came to the presenter's last stop (row {top})")
    stopped_at = presenter.execute_script(
        "const stops = classicPhotosLab.lanes[0].stops; return Date.now() - (performance.now() - stops[stops.length - 1].at)")
    moved_at = follower.execute_script(PRESENTATION)["movedAt"]
    print(f"presenter's last stop -> follower's lanes moved: {moved_at - stopped_at:.0f} ms (wall clocks of two browsers)")
    # And its lanes show the presenter's rows done, without a report of their own
    def shown(driver):
        return [lane["states"][top:top + 3] for lane in driver.execute_script("return classicPhotosLab.lanes")]
    wait_for(follower, lambda d: shown(d) == shown(presenter), 60, "the follower's lanes never showed the presenter's rows")
    assert all(state in ("filtered", "failed") for lane in shown(follower) for state in lane), shown(follower)
    assert all(lane["reports"]["sent"] == 0 for lane in follower.execute_script("return classicPhotosLab.lanes"))
    # And its figures are the presenter's run's: the same stops, bytes between two readings of the presenter's
    before = server.get_json(f"/api/labs/{lab}")
    view = follower_view(server, follower)
    after = server.get_json(f"/api/labs/{lab}")
    assert view["run"] == 1 and "lab" not in view["lab"]
    for mine, theirs, later in zip(view["lab"]["lanes"], before["lanes"], after["lanes"]):
        assert mine["strategy"] == theirs["strategy"] and mine["viewer"] != theirs["viewer"]
        assert mine["stops"] == theirs["stops"] == later["stops"] and len(mine["stops"]) >= 3, (mine["stops"], theirs["stops"])
        for figure in FIGURES:
            assert theirs[figure] <= mine[figure] <= later[figure], (figure, theirs[figure], mine[figure], later[figure])

    # When the follower presses Esc it stops following: the presenter's scroll by hand no longer moves it
    assert "Following the presenter" in follower.find_element(By.ID, "lab-presentation").text
    ActionChains(follower).send_keys(Keys.ESCAPE).perform()
    wait_for(follower, lambda d: d.execute_script(PRESENTATION)["following"] is False, 10, "Esc did not stop following")
    own = follower.execute_script("return classicPhotosLab.firstRow")
    moved = scroll_lanes(presenter, -240)
    assert moved != own
    wait_for(follower, lambda d: d.execute_script(PRESENTATION)["last"]["first"] == moved, 30, "the follower never heard the move")
    assert follower.execute_script("return classicPhotosLab.firstRow") == own
    # And "Follow again" takes it to where the presenter is now
    follower.find_element(By.CSS_SELECTOR, "#lab-presentation [data-action=follow-again]").click()
    wait_for(follower, lambda d: d.execute_script("return classicPhotosLab.firstRow") == moved, 30,
             f"following again did not go to the presenter's row {moved}")

    # When the presenter runs the lab again (a new cold run), the follower follows the new run
    presenter.find_element(By.ID, "run").click()
    wait_for(presenter, lambda d: d.execute_script("return classicPhotosLab.id") not in (None, lab), 30, "no new run")
    wait_for(follower, lambda d: d.execute_script(PRESENTATION)["run"] == 2, 30, "the follower never saw the new run")
    assert presenter.execute_script(PRESENTATION)["role"] == "presenter"

    # When the presenter stops presenting, the follower is told and keeps what it shows
    kept = follower.execute_script("return classicPhotosLab.firstRow")
    presenter.find_element(By.CSS_SELECTOR, "#lab-presentation [data-action=stop-presenting]").click()
    wait_for(follower, lambda d: d.execute_script(PRESENTATION)["ended"] is True, 30, "the follower was never told it ended")
    assert "ended" in follower.find_element(By.ID, "lab-presentation").text
    assert follower.execute_script("return classicPhotosLab.firstRow") == kept
    assert len(follower.execute_script("return classicPhotosLab.lanes")) == 2


def test_a_wrong_or_ended_follow_link_is_a_page_saying_so(start_server, driver):
    server = start_server("lab-presented-wrong", photo_count=40, latency_ms=10, bandwidth=20_000_000)
    driver.get(server.base_url + "/lab?follow=" + "0" * 32)
    heading = wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "h1"), 10, "no page")
    assert "No such presentation" in driver.page_source, heading.text
    assert not driver.find_elements(By.CSS_SELECTOR, ".lane-list")
