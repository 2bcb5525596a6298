"""The lab tells its story to a newcomer: a line on what to try and what to look for; timelines with a
time axis and a legend; rows in words a person uses; a trace that moves on before the lanes have
finished (as an impatient person does), so the lanes that cancel show aborted transfers and
cancelled operations, in their timelines and in the summary, which is brought into view, with 0 ms
explained."""
from __future__ import annotations

import re

from selenium.webdriver.common.by import By

from test_lab import TRACE_TIMEOUT, open_lab, wait_for

# The list's words (RowWords.swift), a finished lane row saying only "Sepia".
ROW_WORDS = re.compile(r"^Photo \d+ · (Waiting|Downloading…( \d+%)?|Downloaded · sepia next|Applying sepia…|Sepia|Failed to load)$")


def summary_row(driver, strategy: str) -> dict:
    cells = driver.execute_script("""
        const row = document.querySelector('#summary tbody tr[data-strategy="' + arguments[0] + '"]');
        const heads = [...document.querySelectorAll('#summary thead th')].map((th) => th.textContent);
        return Object.fromEntries([...row.children].map((cell, i) => [heads[i], cell.textContent]));
    """, strategy)
    return cells


def test_the_lab_says_what_to_try_and_what_to_look_for(driver, server):
    open_lab(driver, server)
    line = driver.find_element(By.ID, "lab-try")
    assert line.is_displayed()
    assert "Try:" in line.text and "Look for:" in line.text and "cancel" in line.text, line.text
    legend = driver.find_element(By.CSS_SELECTOR, ".lab-legend").text
    for outcome in ("running", "finished", "cancelled", "failed", "downloads above", "last 20 s"):
        assert outcome in legend, legend
    axes = driver.execute_script(
        "return [...document.querySelectorAll('.lane-axis')].map((a) => [...a.children].map((s) => s.textContent))")
    assert len(axes) == 2 and all(axis[0] == "−20 s" and axis[-1] == "now" for axis in axes), axes


def test_an_impatient_trace_shows_the_cancellations_the_tutorial_is_about(driver, server):
    # Given the visible and prefetch lanes (eager unchecked) on a network where a photo takes most of
    # a second, longer than the trace stays at a stop
    open_lab(driver, server, latency_ms=150, bandwidth=400_000, add=("eager", "visible"))
    lanes = [e.get_attribute("data-strategy") for e in driver.find_elements(By.CSS_SELECTOR, ".lane-list")]
    assert lanes == ["visible", "prefetch"], lanes

    # When the impatient trace plays
    driver.find_element(By.CSS_SELECTOR, "[data-trace=impatient]").click()
    wait_for(driver, lambda d: d.execute_script(
        "return document.querySelector('.lab-summary').dataset.ready === 'true'"), TRACE_TIMEOUT,
        "the trace never finished (no summary)")

    # Then the summary is in view, and every lane that cancels shows it there and in its timeline
    in_view = driver.execute_script("""
        const table = document.getElementById('summary').getBoundingClientRect();
        return table.top >= 0 && table.bottom <= innerHeight;
    """)
    assert in_view, "the summary is not in view after the trace"
    for strategy in ("visible", "prefetch"):
        row = summary_row(driver, strategy)
        # ("12: 5 while running, 7 before they started")
        aborted, cancelled = int(row["transfers aborted"]), int(row["operations cancelled"].split(":")[0])
        assert aborted > 0 and cancelled > 0, f"{strategy}: {row}"
        drawn = driver.execute_script(
            "return Number(document.querySelector('.lane-head[data-strategy=\"' + arguments[0] + '\"] .lane-timeline-box')"
            ".dataset.cancelled || 0)", strategy)
        assert drawn > 0, f"the {strategy} lane's timeline drew no cancelled operation"
    # And 0 ms, where it appears, is explained beside the table
    hint = driver.find_element(By.CSS_SELECTOR, ".lab-summary .hint").text
    assert "0 ms" in hint and "already" in hint, hint
    # And the rows say what they are in words a person uses
    labels = driver.execute_script("return [...document.querySelectorAll('.row-label')].map((l) => l.textContent)")
    odd = sorted({label for label in labels if not ROW_WORDS.match(label)})
    assert not odd, odd[:10]
