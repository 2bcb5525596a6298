"""The lab starts when its trace does: no lane works (the eager one included) until the trace's first
report, so "Impatient jumps" gives the same verdict pressed at once and after the person has read the
page for a while; its figures are frozen at the trace's end (the lane's line and the summary agree, what
the lane does after is shown apart); a stop the person left before it was done reads "moved on"; and
on a 1366x768 laptop the lanes are on screen while the trace plays."""
from __future__ import annotations

import json
import time

from selenium.webdriver.common.by import By

from gestures import laptop
from test_lab import TRACE_TIMEOUT, open_lab, wait_for

# The seconds a person reads the page before pressing a trace. On main the eager lane downloaded
# dozens of photos in it (on this network: about four a second), so its stops were done before the
# trace reached them.
READING_S = 20
# A photo takes most of a second: longer than the impatient trace stays at a stop.
NETWORK = {"latency_ms": 150, "bandwidth": 400_000}


def play(driver, trace: str) -> None:
    driver.find_element(By.CSS_SELECTOR, f"[data-trace={trace}]").click()
    wait_for(driver, lambda d: d.execute_script("return document.querySelector('.lab-summary').dataset.ready === 'true'"),
             TRACE_TIMEOUT, f"the {trace} trace never finished (no summary)")


def verdict(driver) -> dict[str, tuple[int, int, int]]:
    """Each lane's stops: (done, moved on, not done), as the page timed them."""
    lanes = driver.execute_script("return classicPhotosLab.lanes")
    return {lane["strategy"]: (sum(s["ms"] is not None for s in lane["stops"]),
                               sum(s["abandoned"] and s["ms"] is None for s in lane["stops"]),
                               sum(bool(s["notDone"]) for s in lane["stops"])) for lane in lanes}


def summary_cells(driver) -> dict[str, dict[str, str]]:
    return driver.execute_script("""
        const heads = [...document.querySelectorAll('#summary thead th')].map((th) => th.textContent);
        return Object.fromEntries([...document.querySelectorAll('#summary tbody tr')].map((row) =>
            [row.dataset.strategy, Object.fromEntries([...row.children].map((cell, i) => [heads[i], cell.textContent]))]));
    """)


def test_impatient_jumps_give_the_same_verdict_pressed_at_once_and_after_reading(driver, server):
    # Given the lab's default lanes, eager and prefetch, on a network slower than the trace's pace
    open_lab(driver, server, **NETWORK)

    # When "Impatient jumps" is pressed at once
    play(driver, "impatient")
    at_once = verdict(driver)
    print(f"pressed at once: {at_once} {summary_cells(driver)}")
    # Then a stop the person left before it was done reads "moved on", never as a failure
    stops = {strategy: cells["stops"] for strategy, cells in summary_cells(driver).items()}
    assert at_once["eager"][1] > 0 and "moved on" in stops["eager"], stops
    assert all("fail" not in text for text in stops.values()), stops

    # And when the lab runs again (cold) and the person reads for a while before pressing it
    first = driver.execute_script("return classicPhotosLab.id")
    driver.find_element(By.ID, "run").click()
    wait_for(driver, lambda d: d.execute_script("return classicPhotosLab.id") not in (None, first)
             and "Lab running" in d.find_element(By.ID, "lab-status").text, 30, "the cold run never started")
    lab = driver.execute_script("return classicPhotosLab.id")
    # Then no lane works while the person reads: not the eager lane, nor the browser's
    read_until = time.monotonic() + READING_S
    while time.monotonic() < read_until:
        status, report = server.request("GET", f"/api/labs/{lab}")
        assert status == 200, report
        working = {lane["strategy"]: lane["bytesDownloaded"] for lane in report["lanes"] if lane["bytesDownloaded"]}
        assert not working, f"lanes worked before any trace or scroll: {working}"
        time.sleep(0.25)
    play(driver, "impatient")
    after_reading = verdict(driver)
    print(f"pressed after {READING_S} s: {after_reading} {summary_cells(driver)}")

    # Then every lane's verdict is the same, within a stop of the machine's noise
    assert at_once.keys() == after_reading.keys()
    for strategy in at_once:
        done, moved_on, not_done = at_once[strategy]
        again = after_reading[strategy]
        assert abs(again[0] - done) <= 1 and abs(again[1] - moved_on) <= 1 and abs(again[2] - not_done) <= 1, \
            f"{strategy}: {at_once[strategy]} pressed at once, {again} after reading"


def test_the_figures_are_frozen_at_the_traces_end_and_what_follows_is_shown_apart(driver, server):
    # Given the default lanes on a network where eager is still downloading when the trace ends
    open_lab(driver, server, **NETWORK)

    # When "Impatient jumps" plays
    play(driver, "impatient")
    frozen = driver.execute_script("""
        return Object.fromEntries([...document.querySelectorAll('.lane-head')].map((head) =>
            [head.dataset.strategy, Number(head.querySelector('[data-figures]').dataset.downloaded)]));
    """)
    summary = driver.execute_script("""
        return Object.fromEntries([...document.querySelectorAll('#summary tbody tr')].map((row) =>
            [row.dataset.strategy, Number(row.dataset.downloaded)]));
    """)
    # Then each lane's line and the summary say the same bytes
    assert frozen == summary, (frozen, summary)
    # And each server lane's queues add up in the summary: started = finished + cancelled while running +
    # failed + running, cancellations before start apart, and its "operations cancelled" is their sum
    cells = summary_cells(driver)
    for strategy in ("eager", "prefetch"):
        ledger = json.loads(driver.find_element(By.CSS_SELECTOR, f"#summary tr[data-strategy={strategy}]").get_attribute("data-ledger"))
        for queue, counts in ledger.items():
            ran = counts["finished"] + counts["cancelledRunning"] + counts["failed"] + counts["executing"]
            assert counts["started"] == ran, f"{strategy} {queue}: {counts}"
        running = sum(counts["cancelledRunning"] for counts in ledger.values())
        queued = sum(counts["cancelledQueued"] for counts in ledger.values())
        expected = f"{running + queued}: {running} while running, {queued} before they started"
        assert cells[strategy]["operations cancelled"] == expected, (strategy, cells[strategy], ledger)
    assert "0: 0 while running" not in cells["prefetch"]["operations cancelled"], cells["prefetch"]

    # And once the eager lane has downloaded more since, that is shown apart, and its line still agrees
    wait_for(driver, lambda d: d.execute_script(
        "return Number(document.querySelector('.lane-head[data-strategy=eager] [data-since]').dataset.downloaded || 0)") > 0,
        60, "the eager lane's work after the trace was never shown")
    since = driver.find_element(By.CSS_SELECTOR, ".lane-head[data-strategy=eager] [data-since]")
    assert since.is_displayed() and "Since the trace ended" in since.text, since.text
    line = driver.find_element(By.CSS_SELECTOR, ".lane-head[data-strategy=eager] [data-figures]")
    assert int(line.get_attribute("data-downloaded")) == summary["eager"]
    assert "At the trace's end" in line.text, line.text
    assert summary_cells(driver)["eager"]["downloaded"] in line.text, (line.text, summary_cells(driver)["eager"])


def test_the_lanes_are_on_screen_at_1366x768_while_a_trace_plays(driver, server):
    # Given a laptop's window
    laptop(driver)
    open_lab(driver, server, **NETWORK)

    # When a trace plays
    driver.find_element(By.CSS_SELECTOR, "[data-trace=impatient]").click()
    wait_for(driver, lambda d: "Playing" in d.find_element(By.ID, "lab-status").text, 30, "the trace never started")

    # Then, while it plays, the lanes' rows, their heads and the line saying where the trace is are all
    # within the window
    boxes = driver.execute_script("""
        const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
        return { height: innerHeight, playing: classicPhotosLab.playing,
                 scroller: box(document.querySelector('.lane-scroller')),
                 heads: [...document.querySelectorAll('.lane-head')].map(box),
                 status: box(document.getElementById('lab-status')) };
    """)
    assert boxes["playing"], boxes
    assert boxes["height"] == 768, boxes
    for name, box in [("the lanes' rows", boxes["scroller"]), ("the trace's line", boxes["status"])] + \
            [(f"lane head {n}", head) for n, head in enumerate(boxes["heads"])]:
        assert box["top"] >= 0 and box["bottom"] <= boxes["height"], f"{name} off screen: {box} ({boxes})"
