"""The panel: every figure says what it means, the timeline shows every cancellation, each tab
chooses its strategy."""
from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.support.ui import Select

from test_figures import BADGE_PROBE
from test_page import ROW_HEIGHT, Page, screens, wait_for

FIGURES = """
    // Every number and badge of the panel, each with the element that explains it.
    const out = [];
    for (const el of document.querySelectorAll('#panel .num, #panel .badge, #panel dd, #panel td[id], #panel th, #panel #stat-viewers, #panel #page-work, #panel #page-cost')) {
        const owner = el.closest('.has-tip');
        const ids = owner ? (owner.getAttribute('aria-describedby') || '').split(/\\s+/) : [];
        const text = ids.map((id) => document.getElementById(id)).filter(Boolean).map((d) => d.textContent.trim()).join(' ');
        out.push({ what: (el.id || el.textContent).trim(), owner: !!owner, focusable: !!owner && owner.tabIndex >= 0,
                   cell: el.tagName === 'TD', description: text });
    }
    return out;
"""


def tooltip(page: Page) -> str | None:
    return page.js("const t = document.getElementById('tooltip'); return t.hidden ? null : t.textContent")


def test_every_figure_says_what_it_means(server, driver):
    page = Page(driver, server).open()
    wait_for(driver, lambda d: d.execute_script("return !!classicPhotos.stats"), 15, "no server totals")
    figures = page.js(FIGURES)
    assert len(figures) >= 25, figures
    unexplained = [f["what"] for f in figures if not f["owner"] or len(f["description"]) < 20]
    assert not unexplained, f"figures without a description: {unexplained}"
    # Only controls are Tab stops: the figures' explanations are reached with "Explain the
    # figures" (test_keyboard.py), not by focusing each figure.
    assert not [f["what"] for f in figures if f["focusable"]]

    # On hover, the tooltip says the same as the description screen readers get.
    for selector in ("#dl-pending", "#stat-ahead-bytes", "#stat-ft-cancelled"):
        element = driver.find_element("css selector", selector)
        description = next(f["description"] for f in figures if f["what"] == selector[1:])
        page.js("arguments[0].scrollIntoView({block: 'center'})", element)
        ActionChains(driver).move_to_element(element).perform()
        wait_for(driver, lambda _: tooltip(page) == description, 5, f"no tooltip on hovering {selector}")
        ActionChains(driver).move_to_element(driver.find_element("css selector", "h1")).perform()
        assert tooltip(page) is None, f"the tooltip of {selector} stayed after the pointer left"

    # This page's work and the server's are told apart; the figure for work ahead of any viewer
    # is named for what it counts, not called waste before anyone could have scrolled.
    headings = page.js("return [...document.querySelectorAll('#panel h2, #panel h3')].map(h => h.textContent)")
    assert any(h.startswith("This page’s queues") for h in headings), headings
    assert any("Operations: all viewers" in h for h in headings), headings
    assert any("Server totals: all viewers" in h for h in headings), headings
    assert any("no viewer has seen yet" in h for h in headings), headings
    assert "wasted" not in page.js("return document.getElementById('panel').innerText").lower()


def test_suspended_says_why_and_does_not_flicker(slow_server, driver):
    page = Page(driver, slow_server).open()
    badge = driver.find_element("id", "dl-suspended")
    description = page.js("return document.getElementById(arguments[0].getAttribute('aria-describedby')).textContent",
                          badge)
    assert "scroll" in description and "running" in description and "nothing new starts" in description
    assert not badge.is_displayed()
    page.js(BADGE_PROBE)
    page.scroll_to(screens(0, 100 * ROW_HEIGHT, 8))
    wait_for(driver, lambda d: d.execute_script("return window.__badge.some((b) => b.on)"), 10,
             "the badge never showed while scrolling")
    assert badge.get_attribute("textContent") == "Suspended · scrolling"
    # After scrolling stops, the badge goes as the page stops (test_figures.py times it); a
    # reader's slow scroll is not suspended, so it does not flip with a slow wheel.
    page.wait_reported()
    wait_for(driver, lambda d: not badge.is_displayed(), 10, "the badge stayed after scrolling stopped")


def test_the_timeline_shows_every_cancellation(slow_server, driver):
    page = Page(driver, slow_server).open()
    before = slow_server.stats()
    cancelled_before = before["downloads"]["cancelled"] + before["filtrations"]["cancelled"]
    seen_before = page.js("const t = classicPhotos.timeline; return t.cancelledRunning + t.cancelledQueued")
    count = page.count
    # Back and forth: rows are asked for and left again, so queued work is cancelled.
    for target in (60, 10, 120, 30, count - 10):
        page.scroll_to(screens(page.visible_range()[0] * ROW_HEIGHT, target * ROW_HEIGHT, 3))
        page.wait_reported()

    def counts(_):
        stats = slow_server.stats()
        server = stats["downloads"]["cancelled"] + stats["filtrations"]["cancelled"] - cancelled_before
        t = page.js("return classicPhotos.timeline")
        return server > 0 and server == t["cancelledRunning"] + t["cancelledQueued"] - seen_before and t

    t = wait_for(driver, counts, 30, "the timeline does not show every cancellation the server counted")
    assert t["cancelledQueued"] > 0, t

    # Each bar and mark says what it was, on hover too; using one scrolls the list to its row.
    ops = page.js("""
        return [...document.querySelectorAll('#timeline .op')].map(e => ({
            label: e.getAttribute('aria-label'), mark: e.classList.contains('mark'), index: +e.dataset.index }));
    """)
    assert ops and all(o["label"] and o["label"].startswith(("Download of #", "Sepia filter of #")) for o in ops), ops[:5]
    marks = [o for o in ops if o["mark"]]
    assert marks and all("cancelled while still queued" in o["label"] for o in marks), marks[:5]
    mark = driver.find_elements("css selector", "#timeline .op.mark")[-1]
    index = int(mark.get_attribute("data-index"))
    page.js("arguments[0].focus()", mark)
    assert tooltip(page) == mark.get_attribute("aria-label")
    page.js("arguments[0].click()", mark)
    page.wait_reported()
    first, last = page.visible_range()
    assert first <= index <= last, (index, first, last)
    assert page.js("return classicPhotos.activeRow") == index


def test_the_timeline_pauses_scrubs_and_filters(server, driver):
    page = Page(driver, server).open()
    pause = driver.find_element("id", "timeline-pause")
    scrub = driver.find_element("id", "timeline-scrub")
    assert not scrub.is_enabled()
    pause.click()
    assert pause.get_attribute("aria-pressed") == "true" and page.js("return classicPhotos.timeline.paused")
    assert scrub.is_enabled()
    page.js("arguments[0].value = 30; arguments[0].dispatchEvent(new Event('input'))", scrub)
    axis = page.js("return [...document.querySelectorAll('#timeline [data-seconds]')].map(e => e.textContent)")
    assert axis[0].startswith("−50") and axis[-1].startswith("−30"), axis
    pause.click()
    assert not page.js("return classicPhotos.timeline.paused")

    driver.find_element("css selector", "input[name='timeline-filter'][value='mine']").find_element("xpath", "..").click()
    assert driver.find_element("id", "timeline").get_attribute("data-filter") == "mine"
    assert driver.find_element("id", "timeline-title").get_attribute("textContent") == "Operations: this page"


def test_each_tab_asks_for_its_own_strategy(server, driver):
    page = Page(driver, server)
    driver.get(server.base_url + "/?strategy=visible&prefetch=0")
    wait_for(driver, lambda d: d.execute_script("return !!(window.classicPhotos && classicPhotos.count > 0)"), 60,
             "the page never built its rows")
    page.wait_reported()
    select = Select(driver.find_element("id", "strategy-select"))
    assert select.first_selected_option.get_attribute("value") == "visible"
    assert not driver.find_element("id", "prefetch-input").is_enabled()
    report = page.js("return classicPhotos.reports.lastAcknowledged")
    assert report["strategy"] == "visible" and report["prefetch"] == 0, report
    wait_for(driver, lambda d: d.execute_script(
        "const a = classicPhotos.strategy.applied; return !!a && a.strategy === 'visible'"), 10,
        "the server never said it applies the URL's strategy")

    select.select_by_value("prefetch")
    prefetch = driver.find_element("id", "prefetch-input")
    prefetch.clear()
    prefetch.send_keys("7\n")
    wait_for(driver, lambda d: d.execute_script("""
        const r = classicPhotos.reports.lastAcknowledged;
        return r.strategy === 'prefetch' && r.prefetch === 7 && !classicPhotos.reports.inFlight;
    """), 10, "the new strategy was never reported")
    assert "strategy=prefetch" in driver.current_url and "prefetch=7" in driver.current_url, driver.current_url
    # The server applies it to this viewer, and its queues events say so.
    wait_for(driver, lambda d: d.execute_script("""
        const a = classicPhotos.strategy.applied;
        return !!a && a.strategy === 'prefetch' && a.prefetch === 7;
    """), 10, "the server never said it applies the tab's strategy")
    note = driver.find_element("id", "strategy-note").text
    assert note.startswith("The server schedules this page’s work by prefetch ±7"), note


def test_this_pages_own_work_is_counted(start_server, driver):
    """"So far" counts the operations this page asked for, as they finish (a fresh server: every
    row at the end of the list is downloaded and filtered for this page once it scrolls there; the
    first screen's may be done before the page has connected, since the server starts them with the
    page itself)."""
    server = start_server("own-work", photo_count=30, latency_ms=20, bandwidth=20_000_000)
    page = Page(driver, server).open()
    top = page.visible_range()
    page.scroll_to([30 * ROW_HEIGHT])
    page.wait_reported()
    first, last = page.visible_range()
    assert first > top[1] + max(3, (top[1] - top[0] + 2) // 2), (top, first)  # rows no earlier work touched
    page.wait_filtered(first, last, allow_failed=True)
    filtered = sum(server.photos()[i]["state"] == "filtered" for i in range(first, last + 1))

    def counts(d):
        words = d.find_element("id", "page-work").text.split()
        return (int(words[0]), int(words[3])) if words and words[0].isdigit() else (0, 0)

    wait_for(driver, lambda d: min(counts(d)) >= filtered, 15,
             f"this page's work does not count the {filtered} rows it filtered: "
             + driver.find_element("id", "page-work").text)

    # The server says what that work cost this page: bytes and filter time, none of it on rows
    # never shown when the page only had its first screen's rows done (the default prefetch
    # margin's rows below the screen are the exception, and are named as such).
    def cost(d):
        return d.find_element("id", "page-cost").text

    wait_for(driver, lambda d: "downloaded" in cost(d) and "sepia filtering" in cost(d), 15,
             "the page's cost never came: " + cost(driver))
    assert not cost(driver).startswith("0 B"), cost(driver)


def test_a_shared_link_opens_with_its_strategy(start_server, driver):
    """`/?strategy=visible&prefetch=0` makes this page's viewer follow that strategy: the server's
    queues events say so, and after a jump to the middle no row beyond the screen is worked on for
    it (the default strategy reads ahead of a resting screen)."""
    server = start_server("shared-link", photo_count=300, latency_ms=20, bandwidth=20_000_000)
    page = Page(driver, server).open("/?strategy=visible&prefetch=0")
    wait_for(driver, lambda d: "by visible" in d.find_element("id", "strategy-note").text, 20,
             "the server never said it applies visible: " + driver.find_element("id", "strategy-note").text)
    page.scroll_to([150 * ROW_HEIGHT])
    page.wait_reported()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    photos = server.photos()
    beyond = [p["index"] for p in photos[last + 1:last + 20] if p["state"] != "new"]
    assert not beyond, f"rows beyond the screen were worked on for a visible-only viewer: {beyond}"
