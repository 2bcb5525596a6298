"""The page from the keyboard: a skip link first, only controls in the Tab order, the whole page in at
most 12 Tab stops (first and return visits, desktop and phone; the header's About, Present and Lab one
toolbar, one stop), Present reached and started by keyboard alone, and every figure's explanation
reachable without a pointer ("Explain the figures") instead of by focusing figures."""
from __future__ import annotations

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from test_layout import set_viewport
from test_page import ROW_HEIGHT, Page, wait_for

# Issue 60: 12. Issue 37's Present button made it 13 as a stop of its own; the header's controls are one
# toolbar now (one stop, the arrows between them).
MAX_TAB_STOPS = 12

# What has focus: a key that tells stops apart, and whether it is a control (a link, a button, a
# form field, a <details> summary, or a widget role that takes keys: the list's listbox).
FOCUSED = """
    const el = document.activeElement;
    if (!el || el === document.body || el === document.documentElement) return null;
    const tag = el.tagName.toLowerCase();
    const role = el.getAttribute('role');
    const control = (tag === 'a' && el.hasAttribute('href')) || ['button', 'input', 'select', 'textarea', 'summary'].includes(tag)
        || ['listbox', 'option'].includes(role);
    const box = el.getBoundingClientRect();
    return { key: el.id || (tag === 'input' && el.type === 'radio' ? 'radio:' + el.name : '')
                  || tag + ':' + (el.getAttribute('aria-label') || el.textContent).trim().slice(0, 30),
             tag, role, control, inHeader: !!el.closest('#header-controls'), text: (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 40),
             inView: box.bottom > 0 && box.top < innerHeight && box.right > 0 && box.left < innerWidth };
"""


def tab_stops(page: Page) -> list[dict]:
    """Presses Tab from the top of the page until focus comes round to the first stop again."""
    page.js("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
    stops: list[dict] = []
    for _ in range(60):
        ActionChains(page.driver).send_keys(Keys.TAB).perform()
        focused = page.js(FOCUSED)
        if focused is None:  # past the last stop: the browser's own controls
            if stops:
                break
            continue
        if stops and focused["key"] == stops[0]["key"]:
            break
        stops.append(focused)
    return stops


def settle(page: Page):
    """The page at rows still to be done, once they are, so the timeline has operations (its bars
    are one more stop: the most the page has)."""
    fresh = page.js("""
        for (let i = 0; i < classicPhotos.count; i += 1) if (classicPhotos.rowState(i) === 'new') return i;
        return 0;
    """)
    page.scroll_to([fresh * ROW_HEIGHT])
    page.wait_reported()
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    wait_for(page.driver, lambda d: d.execute_script("return classicPhotos.timeline.items > 0"), 30,
             "the timeline never showed an operation")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_whole_page_is_a_few_tab_stops_all_controls_after_a_skip_link(server, driver, size):
    set_viewport(driver, size)
    page = Page(driver, server)
    for visit in ("first", "return"):
        page.open()
        settle(page)
        stops = tab_stops(page)
        keys = [stop["key"] for stop in stops]
        print(f"{size}, {visit} visit: {len(stops)} Tab stops: {keys}")
        assert stops[0]["key"] == "skip-link" or stops[0]["text"] == "Skip to the photo list", keys
        assert stops[0]["inView"], "the skip link is not shown when it has focus"
        assert not [stop for stop in stops if not stop["control"]], f"not controls: {[s for s in stops if not s['control']]}"
        assert len(set(keys)) == len(keys), f"a stop came twice: {keys}"
        assert len(stops) <= MAX_TAB_STOPS, f"{len(stops)} Tab stops on a {visit} visit at {size}: {keys}"
        assert len([stop for stop in stops if stop["inHeader"]]) == 1, f"the header's controls are not one stop: {keys}"
        assert "list" in keys, keys
        if visit == "first":
            assert any(stop["text"] == "Got it" for stop in stops), keys
            driver.find_element("css selector", "[data-action='dismiss-intro']").click()


def test_the_skip_link_takes_the_keyboard_to_the_list(server, driver):
    page = Page(driver, server).open()
    page.js("document.activeElement && document.activeElement.blur()")
    ActionChains(driver).send_keys(Keys.TAB).perform()
    assert page.js("return document.activeElement.textContent") == "Skip to the photo list"
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    assert page.js("return document.activeElement.id") == "list"
    # And from there the arrows move between rows at once.
    before = page.js("return classicPhotos.activeRow")
    ActionChains(driver).send_keys(Keys.ARROW_DOWN).perform()
    wait_for(driver, lambda d: d.execute_script("return classicPhotos.activeRow") == before + 1, 5,
             "the arrow key did not move to the next row after the skip link")


def test_present_is_reached_in_the_headers_toolbar_and_started_by_keyboard_alone(server, driver):
    page = Page(driver, server).open()
    driver.find_element("css selector", "[data-action='dismiss-intro']").click()
    page.open()  # a return visit: About, Present and Lab all shown
    assert page.js("""const t = document.getElementById('header-controls');
                      return [t.getAttribute('role'), t.getAttribute('aria-label')]""") == ["toolbar", "Page"]
    page.js("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
    # Tab after the skip link comes to the toolbar at its first control, the arrows go through it
    ActionChains(driver).send_keys(Keys.TAB, Keys.TAB).perform()
    assert page.js("return document.activeElement.id") == "about-button"
    ActionChains(driver).send_keys(Keys.ARROW_LEFT).perform()
    assert page.js("return document.activeElement.textContent") == "Lab", "the arrows do not wrap round"
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT).perform()
    focused = page.js("const el = document.activeElement; return [el.id, el.tagName, el.textContent, el.getAttribute('aria-pressed')]")
    assert focused == ["present-button", "BUTTON", "Present", "false"], focused
    # And the stop stays on it: Shift+Tab and Tab come back to Present, the one control of the header in the Tab order
    ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).send_keys(Keys.TAB).perform()
    assert page.js("return document.activeElement.id") == "present-button"
    assert page.js("return [...document.querySelectorAll('#header-controls > *')].filter((e) => e.tabIndex >= 0).length") == 1
    # When Enter presses it, presenting starts: a follow link to share, the button says so
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait_for(driver, lambda d: d.execute_script("return classicPhotos.presentation.link"), 30, "Enter did not start presenting")
    assert page.js("return document.getElementById('present-button').getAttribute('aria-pressed')") == "true"


def test_every_explanation_is_reachable_without_a_pointer(server, driver):
    page = Page(driver, server).open()
    settle(page)
    descriptions = page.js("""
        return [...new Set([...document.querySelectorAll('#panel .has-tip[aria-describedby]')]
            .filter((el) => !el.closest('.op'))
            .flatMap((el) => el.getAttribute('aria-describedby').split(/\\s+/))
            .map((id) => document.getElementById(id).textContent.trim()))];
    """)
    assert len(descriptions) >= 20, descriptions
    # No figure is a Tab stop of its own; the button that explains them is.
    assert page.js("return [...document.querySelectorAll('#panel .has-tip:not(.op)')].filter((e) => e.tabIndex >= 0).length") == 0
    explain = driver.find_element("id", "explain")
    page.js("arguments[0].focus()", explain)
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    assert explain.get_attribute("aria-pressed") == "true"
    text = page.js("return document.getElementById('panel').innerText")
    missing = [d for d in descriptions if d not in text.replace("\n", " ")]
    assert not missing, f"explanations not written out: {missing}"
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    assert explain.get_attribute("aria-pressed") == "false"
    assert page.js("return document.querySelectorAll('#panel .explanation, #panel .explanations').length") == 0
