"""The lab in a real browser: two lanes side by side driven by one scripted scroll, the summary at
the end, and the page reachable and usable from the keyboard."""
from __future__ import annotations

import os

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from gestures import wheel
from test_layout import axe_source, axe_violations

# Seconds for a trace to play out (a debug build filters slowly; stops are bounded at 20 s each).
TRACE_TIMEOUT = float(os.environ.get("CLASSIC_PHOTOS_LAB_TIMEOUT", "180"))


def wait_for(driver, condition, timeout: float, message: str):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition, message)


def start_lanes(driver) -> None:
    """Starts the lanes as a person does without a trace: a wheel notch over them, and its stop."""
    stops = driver.execute_script("return classicPhotosLab.lanes.map((lane) => lane.stops.length)")
    x, y = driver.execute_script("""
        const r = document.querySelector('.lane-scroller').getBoundingClientRect();
        return [r.left + r.width / 2, (Math.max(r.top, 0) + Math.min(r.bottom, innerHeight)) / 2];
    """)
    wheel(driver, x, y, notches=1, interval_s=0, delta=80)
    wait_for(driver, lambda d: d.execute_script("return classicPhotosLab.lanes.map((lane) => lane.stops.length)") != stops,
             30, "the lanes' scroll never stopped")


def open_lab(driver, server, latency_ms: int = 20, bandwidth: int = 20_000_000, add: tuple[str, ...] = (),
             lanes: tuple[str, ...] | None = None, start: bool = False):
    """Opens /lab, sets the network, starts a cold run of the lanes checked by default (eager,
    prefetch) with those in `add` clicked (checked, or unchecked for a default), or of exactly `lanes`.
    Its lanes wait for a first scroll or trace; with `start`, a wheel notch starts them."""
    driver.get(server.base_url + "/lab")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".lane-list"), 30, "the lab never showed its lanes")
    for box in driver.find_elements(By.CSS_SELECTOR, "input[name=lane]"):
        strategy = box.get_attribute("value")
        if (strategy in add) if lanes is None else (box.is_selected() != (strategy in lanes)):
            box.click()
    for name, value in (("latencyMs", latency_ms), ("bandwidth", bandwidth)):
        field = driver.find_element(By.NAME, name)
        field.clear()
        field.send_keys(str(value))
    driver.find_element(By.ID, "run").click()
    wait_for(driver, lambda d: "Lab running" in d.find_element(By.ID, "lab-status").text
             and f"{latency_ms} ms latency" in d.find_element(By.ID, "lab-status").text,
             30, "the cold run never started")
    if start:
        start_lanes(driver)


def test_two_lanes_play_a_trace_and_the_summary_shows_eager_downloading_more(driver, server):
    # Given the lab with its two default lanes, eager and prefetch, and the browser's own, on a fast network
    open_lab(driver, server, add=("browser",))
    lanes = [element.get_attribute("data-strategy") for element in driver.find_elements(By.CSS_SELECTOR, ".lane-list")]
    assert lanes == ["eager", "prefetch", "browser"]

    # When the fast flick to the bottom is played
    driver.find_element(By.CSS_SELECTOR, "[data-trace=flick]").click()
    wait_for(driver, lambda d: d.execute_script(
        "return document.querySelector('.lab-summary').dataset.ready === 'true'"), TRACE_TIMEOUT,
        "the trace never finished (no summary)")

    # Then the summary has a row per lane, and eager downloaded more than prefetch
    rows = driver.find_elements(By.CSS_SELECTOR, "#summary tbody tr")
    downloaded = {row.get_attribute("data-strategy"): int(row.get_attribute("data-downloaded")) for row in rows}
    assert set(downloaded) == {"eager", "prefetch", "browser"}
    assert downloaded["eager"] > downloaded["prefetch"] > 0, downloaded
    assert downloaded["browser"] > 0, "the browser lane's bytes come from Resource Timing"
    # And every lane shows the rows at the bottom in sepia, the same rows at the same scroll
    bottom = driver.execute_script("""
        const scroller = document.querySelector('.lane-scroller');
        const row = Math.floor(scroller.scrollTop / 80) + 1;
        return [...document.querySelectorAll('.lane-list')].map(list => list.children[row].dataset.state);
    """)
    assert bottom == ["filtered", "filtered", "filtered"], bottom
    # And the server timed both of the prefetch lane's stops (the top, then the bottom)
    lab = driver.execute_script("return classicPhotosLab.id")
    status, report = server.request("GET", f"/api/labs/{lab}")
    assert status == 200, report
    prefetch = report["lanes"][1]
    assert prefetch["strategy"] == "prefetch" and prefetch["prefetch"] == 3
    assert [stop["first"] for stop in prefetch["stops"]][:1] == [0] and len(prefetch["stops"]) == 2, prefetch["stops"]
    assert all(stop["ms"] is not None for stop in prefetch["stops"]), prefetch["stops"]

def test_the_lab_is_reachable_from_the_list_and_usable_from_the_keyboard(driver, server):
    driver.get(server.base_url + "/")
    link = wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "a[href$='/lab']"), 30, "no link to the lab")
    link.click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".lane-scroller"), 30, "the lab never started")
    # Every control has a name, and the lanes' scroller takes the focus and scrolls with the keys
    for button in driver.find_elements(By.CSS_SELECTOR, "button"):
        assert button.text.strip(), button.get_attribute("outerHTML")
    for field in driver.find_elements(By.CSS_SELECTOR, "input"):
        named = field.get_attribute("aria-label") or driver.execute_script("return arguments[0].closest('label') !== null", field)
        assert named, field.get_attribute("outerHTML")
    scroller = driver.find_element(By.CSS_SELECTOR, ".lane-scroller")
    assert scroller.get_attribute("tabindex") == "0" and scroller.get_attribute("aria-label")
    scroller.click()
    scroller.send_keys("\ue00f")  # Page Down
    wait_for(driver, lambda d: d.execute_script("return document.querySelector('.lane-scroller').scrollTop") > 0, 10,
             "Page Down did not scroll the lanes")


def test_axe_finds_no_violation_in_the_lab(driver, server):
    source = axe_source()
    if source is None:
        pytest.skip("axe-core is not installed: pip install --no-deps axe-playwright-python==0.1.8")
    open_lab(driver, server, add=("browser",))
    violations = axe_violations(driver, source)
    print(f"axe in the lab: {[(v['id'], v['impact']) for v in violations]}")
    assert not violations, violations  # none at all, moderate and minor ones too
