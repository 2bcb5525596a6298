"""What a follower sees (issue 57): its panel names whose queues it shows (the presenter's while it follows,
its own once it goes its own way); a presented lab's follower shows the presenter's summary and lane figures."""
from __future__ import annotations

from selenium.webdriver.common.by import By

import gestures
from test_follow_presenter import STATE, follower_open
from test_lab import TRACE_TIMEOUT
from test_lab_presented import PRESENTATION, open_follower, open_presenter
from test_page import Page, wait_for

TITLE = "return document.getElementById('page-title').textContent"


def test_a_followers_panel_names_the_presenters_queues_and_its_own_once_it_breaks_away(start_server, make_driver):
    server = start_server("follower-panel", photo_count=300, latency_ms=40, bandwidth=20_000_000)
    presenter_driver, follower_driver = make_driver(), make_driver()
    presenter = Page(presenter_driver, server).open("/?present")
    wait_for(presenter_driver, lambda d: d.execute_script(STATE)["link"], 30, "presenting never started")

    # When a second browser follows the presenter
    follower_open(follower_driver, presenter.js(STATE)["link"])
    follower = Page(follower_driver, server)
    wait_for(presenter_driver, lambda d: d.execute_script(STATE)["followers"] == 1, 30, "the presenter never saw its follower")
    # Then the follower's panel says it shows the presenter's queues; the presenter's, its own
    wait_for(follower_driver, lambda d: d.execute_script(TITLE) == "The presenter’s queues", 30,
             f"the follower's panel is titled {follower.js(TITLE)!r}")
    assert presenter.js(TITLE) == "This page’s queues"

    # When the follower turns its own wheel, its panel shows its own queues again, and says so
    x, y = gestures.center_of(follower_driver, "#list")
    gestures.wheel(follower_driver, x, y, notches=6, interval_s=0.05)
    wait_for(follower_driver, lambda d: d.execute_script(STATE)["following"] is False, 10, "the wheel did not break away")
    wait_for(follower_driver, lambda d: d.execute_script(TITLE) == "This page’s queues", 30,
             f"the panel of a follower gone its own way is titled {follower.js(TITLE)!r}")


SUMMARY_ROWS = "return [...document.querySelectorAll('#summary tbody tr')].map((tr) => tr.innerText)"
LANE_FIGURES = "return [...document.querySelectorAll('[data-figures]')].map((p) => p.textContent)"
READY = "return document.querySelector('.lab-summary').dataset.ready === 'true'"


def test_a_labs_follower_shows_the_presenters_summary_and_figures(start_server, make_driver):
    server = start_server("follower-lab-summary", photo_count=120, latency_ms=30, bandwidth=5_000_000)
    presenter, follower = make_driver(), make_driver()
    open_follower(follower, open_presenter(presenter, server))
    wait_for(presenter, lambda d: d.execute_script(PRESENTATION)["followers"] == 1, 30, "the presenter never saw its follower")

    # When the presenter plays a trace to its end
    presenter.find_element(By.CSS_SELECTOR, "[data-trace=impatient]").click()
    wait_for(presenter, lambda d: d.execute_script(READY), TRACE_TIMEOUT, "the trace never finished")
    rows = presenter.execute_script(SUMMARY_ROWS)
    assert len(rows) == 2, rows

    # Then the follower's summary is the presenter's, row for row
    wait_for(follower, lambda d: d.execute_script(READY), 30, "the follower's summary never showed")
    assert follower.execute_script(SUMMARY_ROWS) == rows
    # And so are its lanes' figures (frozen at the trace's end, what the lanes do since said apart)
    figures = presenter.execute_script(LANE_FIGURES)
    assert all(text.startswith("At the trace's end: ") for text in figures), figures
    wait_for(follower, lambda d: d.execute_script(LANE_FIGURES) == figures, 30,
             f"the follower's lane figures {follower.execute_script(LANE_FIGURES)} are not the presenter's {figures}")
