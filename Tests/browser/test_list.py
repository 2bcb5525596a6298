"""The list: virtualised at 3,000 rows, driven by the keyboard, its position kept in the URL."""
from __future__ import annotations

from selenium.webdriver.common.keys import Keys

from test_page import ROW_HEIGHT, Page, screens, wait_for

# Rows the page renders beyond each edge of the screen (Public/list.js).
OVERSCAN = 6

LONG_TASKS = """
    window.__longTasks = [];
    new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: true });
"""


def dom_rows(page: Page) -> list[int]:
    return page.js("return [...document.querySelectorAll('#list .row')].map(r => +r.dataset.index)")


def rendered_bound(page: Page) -> int:
    first, last = page.visible_range()
    return (last - first + 1) + 2 * OVERSCAN + 2  # the current row may be kept too


def test_a_long_list_keeps_only_the_rows_near_the_screen(big_server, driver):
    page = Page(driver, big_server).open()
    assert page.count == 3000
    rows = dom_rows(page)
    assert rows == list(range(len(rows))) and len(rows) <= rendered_bound(page), rows
    height = page.js("return document.getElementById('rows').getBoundingClientRect().height")
    assert height == 3000 * ROW_HEIGHT, "the list is not as tall as all its rows"
    elements = page.js("return document.querySelectorAll('*').length")
    assert elements < 1200, f"{elements} elements in the page"

    # Anywhere in the list, the DOM holds just the rows around the screen, and they are right.
    for target in (1500, 2990):
        page.scroll_to(screens(page.visible_range()[0] * ROW_HEIGHT, target * ROW_HEIGHT, 6))
        page.wait_reported()
        first, last = page.visible_range()
        rows = dom_rows(page)
        assert len(rows) <= rendered_bound(page), (first, last, rows)
        assert set(range(first, last + 1)) <= set(rows), (first, last, rows)
        names = page.js("""
            return [...document.querySelectorAll('#list .row')].map(r => [+r.dataset.index,
                r.querySelector('.name').textContent, r.getBoundingClientRect().top
                - document.getElementById('rows').getBoundingClientRect().top]);
        """)
        for index, name, top in names:
            assert name == f"Photo {index:05d}", (index, name)
            assert abs(top - index * ROW_HEIGHT) < 0.5, (index, top)
    page.wait_filtered(first, last, allow_failed=True)


def test_no_long_tasks_at_load_of_a_long_list(big_server, driver):
    """Loading 3,000 rows costs no task near the seconds the whole list used to take."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LONG_TASKS})
    page = Page(driver, big_server).open()
    page.scroll_to(screens(0, 800 * ROW_HEIGHT, 10))
    page.wait_reported()
    tasks = page.js("return window.__longTasks")
    print(f"long tasks at load and while scrolling: {tasks}")
    # Building all 3,000 rows took tasks of 2.1 and 3.4 s. The aim is no task over 50 ms, which
    # the first-paint benchmark measures (BENCHMARKS.md); wall-clock tasks on a shared CI machine
    # busy with other work can be several times longer, so the test only holds the order of magnitude.
    assert max(tasks, default=0) < 1000, tasks


def focus_list(page: Page):
    listbox = page.driver.find_element("id", "list")
    page.js("arguments[0].focus()", listbox)
    return listbox


def active(page: Page) -> dict:
    return page.js("""
        const list = document.getElementById('list'), id = list.getAttribute('aria-activedescendant');
        const row = id && document.getElementById(id);
        return { index: classicPhotos.activeRow, id, exists: !!row, role: row && row.getAttribute('role'),
                 selected: row && row.getAttribute('aria-selected'), top: list.scrollTop,
                 focused: document.activeElement === list };
    """)


def test_the_list_is_one_tab_stop_with_a_role_and_a_label(server, driver):
    page = Page(driver, server).open()
    listbox = driver.find_element("id", "list")
    assert listbox.get_attribute("role") == "listbox"
    assert listbox.get_attribute("aria-label") == "Photos"
    assert listbox.get_attribute("tabindex") == "0"
    inner = page.js("""
        return [...document.querySelectorAll('#list a, #list button, #list [tabindex]')]
            .filter(e => e.tabIndex >= 0).length;
    """)
    assert inner == 0, "something inside the list is a tab stop of its own"
    # Tab reaches the list (after the introduction), and its focus is visible.
    driver.find_element("css selector", "#intro [data-strategy-link]").send_keys(Keys.TAB)
    assert page.js("return document.activeElement.id") == "list"
    assert page.js("return getComputedStyle(document.getElementById('list')).boxShadow") != "none"


def test_keys_move_between_rows(server, driver):
    page = Page(driver, server).open()
    listbox = focus_list(page)
    first, last = page.visible_range()
    assert active(page)["index"] == first

    for _ in range(3):
        listbox.send_keys(Keys.ARROW_DOWN)
    state = active(page)
    assert state["index"] == first + 3 and state["id"] == f"row-{first + 3}", state
    assert state["exists"] and state["role"] == "option" and state["selected"] == "true", state
    assert state["top"] == 0, "moving within the screen scrolled the list"
    listbox.send_keys(Keys.ARROW_UP)
    assert active(page)["index"] == first + 2

    # PageDown moves by a screen and scrolls just enough to show the row.
    listbox.send_keys(Keys.PAGE_DOWN)
    state = active(page)
    assert state["index"] > last and state["exists"], state
    page.wait_reported()
    first, last = page.visible_range()
    assert first <= state["index"] <= last

    # End, Home: the ends of the list.
    listbox.send_keys(Keys.END)
    page.wait_reported()
    assert active(page)["index"] == page.count - 1 and page.visible_range()[1] == page.count - 1
    listbox.send_keys(Keys.HOME)
    page.wait_reported()
    assert active(page)["index"] == 0 and page.visible_range()[0] == 0
    listbox.send_keys(Keys.PAGE_DOWN, Keys.PAGE_DOWN)
    page.wait_reported()
    assert active(page)["focused"]


def test_tab_after_page_down_does_not_jump_back(server, driver):
    page = Page(driver, server).open()
    listbox = focus_list(page)
    for _ in range(3):
        listbox.send_keys(Keys.PAGE_DOWN)
    page.wait_reported()
    top = active(page)["top"]
    assert top > 0
    listbox.send_keys(Keys.TAB)
    assert page.js("return document.activeElement.id") != "list"
    assert not page.js("return document.getElementById('list').contains(document.activeElement)")
    assert page.js("return document.getElementById('list').scrollTop") == top

    # From a position scrolled to by other means, keys start from what is on screen.
    page.scroll_to([2000])
    page.wait_reported()
    listbox = focus_list(page)
    first, _ = page.visible_range()
    listbox.send_keys(Keys.ARROW_DOWN)
    state = active(page)
    assert first <= state["index"] <= first + 2, (first, state)
    assert abs(state["top"] - 2000) < ROW_HEIGHT, state


def test_the_url_keeps_the_scroll_position(server, driver):
    page = Page(driver, server)
    driver.get(server.base_url + "/?row=121")
    wait_for(driver, lambda d: d.execute_script("return !!(window.classicPhotos && classicPhotos.count > 0)"), 60,
             "the page never built its rows")
    page.wait_reported()
    assert page.visible_range()[0] == 120
    page.scroll_to([40 * ROW_HEIGHT])
    page.wait_reported()
    assert "row=41" in driver.current_url, driver.current_url
