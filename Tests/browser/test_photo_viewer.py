"""The photo viewer as a hand uses it: the before/after split follows a drag on the photo, the slider
under it spans exactly the photo (so every position of it moves the split, none is dead), at desktop
and phone sizes; and a click on the backdrop closes it."""
from __future__ import annotations

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder

from test_layout import set_viewport
from test_page import WORK_TIMEOUT, Page, wait_for

GEOMETRY = """
    const v = document.getElementById('viewer');
    const part = (role) => v.querySelector('[data-role="' + role + '"]');
    const box = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height }; };
    const original = part('original');
    return { open: v.open, compare: box(part('compare')), original: box(original), slider: box(part('slider')),
             dialog: box(v), natural: [original.naturalWidth, original.naturalHeight],
             split: parseFloat(part('compare').style.getPropertyValue('--split')), value: Number(part('slider').value) };
"""


def open_viewer(page: Page) -> dict:
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    index = next(r["index"] for r in page.rows(first, last) if r["state"] == "filtered")
    # The photo opens from its image (a click on the row's text selects the row)
    page.driver.find_element("css selector", f"#list .row[data-index='{index}'] .thumb-box").click()
    wait_for(page.driver, lambda d: d.execute_script("""
        const v = document.getElementById('viewer');
        return v.open && [...v.querySelectorAll('img')].every((i) => i.complete && i.naturalWidth > 0);
    """), WORK_TIMEOUT, "the viewer never showed both images")
    return page.js(GEOMETRY)


def drag(driver, element, from_fraction: float, to_fraction: float):
    """Presses on `element` at `from_fraction` of its width (middle height) and drags to `to_fraction`."""
    width = element.size["width"]
    start = round((from_fraction - 0.5) * width)
    ActionChains(driver).move_to_element_with_offset(element, start, 0).click_and_hold() \
        .move_by_offset(round((to_fraction - from_fraction) * width / 2), 0) \
        .move_by_offset(round((to_fraction - from_fraction) * width / 2), 0).release().perform()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_split_follows_a_drag_and_the_slider_spans_the_photo(server, driver, size):
    set_viewport(driver, size)
    page = Page(driver, server).open()
    geometry = open_viewer(page)
    compare, original, slider = geometry["compare"], geometry["original"], geometry["slider"]
    # The box is the photo: no letterbox around it (the photo's aspect, to a pixel).
    natural_w, natural_h = geometry["natural"]
    assert abs(compare["width"] - original["width"]) <= 1 and abs(compare["height"] - original["height"]) <= 1, geometry
    assert abs(original["width"] / original["height"] - natural_w / natural_h) < 0.01, geometry
    # The slider's track is exactly as wide as the photo, under it.
    assert abs(slider["left"] - compare["left"]) <= 1 and abs(slider["right"] - compare["right"]) <= 1, geometry
    assert compare["right"] <= geometry["dialog"]["right"] and compare["left"] >= geometry["dialog"]["left"], geometry

    photo = driver.find_element("css selector", '#viewer [data-role="compare"]')
    drag(driver, photo, 0.2, 0.8)
    after = page.js(GEOMETRY)
    assert abs(after["split"] - 80) <= 2 and abs(after["value"] - after["split"]) < 0.01, after
    drag(driver, photo, 0.5, 0.05)
    after = page.js(GEOMETRY)
    assert abs(after["split"] - 5) <= 2, f"the first part of the photo does nothing: {after}"
    # The slider's every position moves the split: its first 5% too.
    slider_el = driver.find_element("css selector", '#viewer [data-role="slider"]')
    page.js("arguments[0].value = 3; arguments[0].dispatchEvent(new Event('input'))", slider_el)
    assert page.js(GEOMETRY)["split"] == 3


def test_a_click_on_the_backdrop_closes_the_viewer(server, driver):
    """At desktop size (on a phone the viewer fills the screen: there is no backdrop)."""
    set_viewport(driver, "desktop")
    page = Page(driver, server).open()
    dialog = open_viewer(page)["dialog"]
    # A click inside the dialog, off the photo, keeps it open.
    driver.find_element("id", "viewer-title").click()
    assert page.js("return document.getElementById('viewer').open")
    # A real click on the backdrop, beside the dialog.
    assert dialog["left"] > 8, dialog
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(int(dialog["left"] / 2), int(dialog["top"] + 20))
    actions.pointer_action.click()
    actions.perform()
    wait_for(driver, lambda d: not d.execute_script("return document.getElementById('viewer').open"), 5,
             "a click on the backdrop did not close the viewer")
    assert page.js("return document.activeElement.id") == "list"
