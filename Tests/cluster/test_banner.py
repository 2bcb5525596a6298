"""The page's "database lost" banner, in headless Chromium against an instance whose PostgreSQL
stops: it comes with the totals, and stays through the totals every later tick sends (the page
replaces its totals whole, so a tick's totals without `database` took the banner away)."""
from __future__ import annotations

import os
import shutil

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

from support import DEADLINE

CHROMIUM = os.environ.get("CHROMIUM_BIN", shutil.which("chromium") or "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", shutil.which("chromedriver") or "/usr/bin/chromedriver")

BANNER = "const b = document.getElementById('banner'); return b.hidden ? null : b.dataset.kind;"
VIEWERS = "return document.getElementById('stat-viewers').textContent;"


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900", "--disable-gpu"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def test_the_database_banner_stays_through_the_next_ticks(cluster, postgres, viewers, browser):
    # Given the page of instance a, live
    instance = cluster[0]
    wait = WebDriverWait(browser, DEADLINE)
    browser.get(f"http://127.0.0.1:{instance.port}/")
    wait.until(lambda d: d.execute_script("return !!(window.classicPhotos && classicPhotos.count > 0)"))
    assert browser.execute_script(BANNER) is None

    # When its database goes, the banner says so
    postgres.stop()
    wait.until(lambda d: d.execute_script(BANNER) == "database", "the banner never said the database was lost")

    # And when the totals change (one more viewer), the tick that sends them keeps the banner
    before = browser.execute_script(VIEWERS)
    viewers(instance)
    wait.until(lambda d: d.execute_script(VIEWERS) != before, "no tick brought the new viewer count")
    assert browser.execute_script(BANNER) == "database", "the tick's totals took the banner away"

    # Then once the database is back, a tick takes the banner away
    postgres.start()
    wait.until(lambda d: d.execute_script(BANNER) is None, "the banner stayed after the database came back")
