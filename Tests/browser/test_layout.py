"""The page around the list: the introduction, the panel as a sheet on small screens, and text
that everyone can read (WCAG contrast by computation, and axe-core when it is installed)."""
from __future__ import annotations

import re

import importlib.util
from pathlib import Path

import pytest

from test_page import ROW_HEIGHT, Page, wait_for

PUBLIC = Path(__file__).resolve().parents[2] / "Public"
SIZES = {"desktop": (1366, 800), "tall-narrow": (800, 900), "phone": (390, 844), "phone-landscape": (844, 390)}


def set_viewport(driver, size: str):
    """Makes the page's viewport exactly that size (a headless window's size includes its frame)."""
    width, height = SIZES[size]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def open_without_intro(page: Page):
    page.open()
    page.js("localStorage.setItem('classicPhotos.introDismissed', '1')")
    return page.open()


def test_the_introduction_can_be_dismissed_for_good(server, driver):
    page = Page(driver, server).open()
    # (#intro has no box of its own: its line and its body are what shows)
    intro = driver.find_element("css selector", "#intro .intro-head")
    assert intro.is_displayed()
    text = driver.find_element("css selector", "#intro .intro-body").text
    for words in ("Scroll fast", "suspended", "fill in first", "second tab"):
        assert words in text, text
    links = page.js("return [...document.querySelectorAll('#intro [data-strategy-link]')].map(a => a.href)")
    assert any("strategy=eager" in link for link in links)

    driver.find_element("css selector", "#intro [data-action='dismiss-intro']").click()
    assert not intro.is_displayed()
    assert page.js("return document.activeElement.id") == "list"
    page.open()
    assert not driver.find_element("css selector", "#intro .intro-head").is_displayed(), \
        "a returning visitor sees the intro again"
    about = driver.find_element("id", "about-button")
    about.click()
    assert driver.find_element("css selector", "#intro .intro-head").is_displayed()
    assert page.js("return !!document.activeElement.closest('#intro')")
    # While the introduction shows, its "Got it" is the way out: "About" is not offered twice.
    assert not about.is_displayed()


def imported_by(entry: str) -> set[str]:
    """The modules of Public/ that `entry` imports, directly or not (the lab's own are not the page's)."""
    seen, todo = set(), [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += re.findall(r"""(?:from|import)\s+['"]\./([\w.-]+\.js)['"]""", (PUBLIC / name).read_text())
    return seen


def test_every_module_is_fetched_while_the_page_is_parsed(server, driver):
    """Each ES module is preloaded by the template, so no level of imports waits for the one before."""
    page = Page(driver, server).open()
    preloaded = page.js("return [...document.querySelectorAll('link[rel=modulepreload]')].map(l => l.href)")
    names = sorted(href.rsplit("/", 1)[-1] for href in preloaded)
    assert names == sorted(imported_by("app.js") - {"app.js"})
    # And the event stream was opened before the modules ran (the inline script in <head>).
    assert page.js("return classicPhotos.openedEarly")


def layout(page: Page) -> dict:
    return page.js("""
        const box = (id) => document.getElementById(id).getBoundingClientRect();
        const header = document.querySelector('.topbar').getBoundingClientRect();
        const list = box('list'), panel = box('panel');
        return { width: innerWidth, height: innerHeight, header: header.height, list: list.height,
                 listBottom: list.bottom, panelTop: panel.top, panelBottom: panel.bottom,
                 open: document.getElementById('panel-details').open };
    """)


@pytest.mark.parametrize("size", ["phone", "phone-landscape", "tall-narrow"])
def test_on_small_screens_the_panel_is_a_sheet_under_the_list(server, driver, size):
    set_viewport(driver, size)
    page = open_without_intro(Page(driver, server))
    for opened in (False, True):
        if page.js("return document.getElementById('panel-details').open") != opened:
            driver.find_element("css selector", "#panel-details > summary").click()
        box = layout(page)
        assert box["open"] == opened
        assert box["header"] <= 56, box
        assert box["panelTop"] >= box["listBottom"] - 1, f"the panel is not under the list: {box}"
        assert box["panelBottom"] <= box["height"] + 1, f"the sheet runs off the screen: {box}"
        assert box["list"] >= box["height"] * 2 / 3 - 1, f"the list has less than two thirds of the height: {box}"
        if size == "tall-narrow":
            assert box["list"] >= 7 * ROW_HEIGHT, box
    # The sheet's summary says what the queues do even when folded.
    driver.find_element("css selector", "#panel-details > summary").click()
    assert "downloading" in driver.find_element("id", "panel-summary").text


CONTRAST = """
    const parse = (c) => {
        const m = /rgba?\\(([^)]+)\\)/.exec(c || '');
        if (!m) return null;
        const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
        return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    };
    // The colours behind an element: the layers up to the first opaque one (or a gradient's stops).
    const behind = (el) => {
        const layers = [];
        for (let e = el; e; e = e.parentElement) {
            const cs = getComputedStyle(e);
            if (cs.backgroundImage.includes('gradient')) {
                return { layers, bases: [...cs.backgroundImage.matchAll(/rgba?\\([^)]+\\)/g)].map((m) => parse(m[0])) };
            }
            const bg = parse(cs.backgroundColor);
            if (bg && bg[3] > 0) {
                layers.push(bg);
                if (bg[3] >= 1) return { layers, bases: [] };
            }
        }
        return { layers, bases: [[255, 255, 255, 1]] };
    };
    const out = [];
    const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const seen = new Set();
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
        const el = node.parentElement;
        if (!node.textContent.trim() || seen.has(el) || el.closest('#tips, template, noscript, script, style')) continue;
        seen.add(el);
        const rect = el.getBoundingClientRect();
        const cs = getComputedStyle(el);
        if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) || rect.width < 2 || rect.height < 2
            || cs.clip === 'rect(0px, 0px, 0px, 0px)' || rect.bottom < 0 || rect.top > innerHeight) continue;
        out.push({ text: node.textContent.trim().slice(0, 40), color: parse(cs.color), ...behind(el) });
    }
    for (const el of document.querySelectorAll('select, input[type=number]')) {
        if (el.checkVisibility()) out.push({ text: el.id, color: parse(getComputedStyle(el).color), ...behind(el) });
    }
    return out;
"""


def over(top, bottom):
    alpha = top[3]
    return [top[i] * alpha + bottom[i] * (1 - alpha) for i in range(3)] + [1]


def luminance(rgb):
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def backgrounds(sample: dict):
    """The colours a text sits on: its background layers over the first opaque one (or over each
    stop of a gradient)."""
    layers = sample["layers"]
    if sample["bases"]:
        starts, rest = sample["bases"], layers
    else:  # the last layer is opaque
        starts, rest = [layers[-1]], layers[:-1]
    for start in starts:
        background = over(start, [255, 255, 255, 1])
        for layer in reversed(rest):
            background = over(layer, background)
        yield background


def worst_contrast(sample: dict) -> float:
    return min(ratio(over(sample["color"], background), background) for background in backgrounds(sample))


def settle(page: Page):
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    wait_for(page.driver, lambda d: d.execute_script("return !!classicPhotos.stats"), 15, "no server totals")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_all_text_has_enough_contrast(server, driver, size):
    set_viewport(driver, size)
    page = Page(driver, server).open()
    settle(page)
    if not page.js("return document.getElementById('panel-details').open"):
        driver.find_element("css selector", "#panel-details > summary").click()
    for scrolled in (False, True):
        if scrolled:  # the rest of the panel
            page.js("const p = document.getElementById('panel'); p.scrollTop = p.scrollHeight")
        samples = page.js(CONTRAST)
        assert len(samples) > 20
        low = [(s["text"], round(worst_contrast(s), 2)) for s in samples if worst_contrast(s) < 4.5]
        assert not low, f"text below 4.5:1: {low}"


def axe_source() -> str | None:
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "axe.min.js"
    return path.read_text() if path.exists() else None


def axe_violations(driver, source: str) -> list[dict]:
    """Runs axe-core (its `source`) on the page in `driver`: each violation's id, impact and first nodes."""
    driver.execute_script(source)
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        axe.run(document, { resultTypes: ['violations'] }).then((r) => done(r.violations.map((v) => ({
            id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ': ' + n.failureSummary),
        })))).catch((e) => done([{ id: 'axe-error', impact: 'critical', nodes: [String(e)] }]));
    """)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_axe_finds_no_violation(server, driver, size):
    source = axe_source()
    if source is None:
        pytest.skip("axe-core is not installed: pip install --no-deps axe-playwright-python==0.1.8")
    set_viewport(driver, size)
    page = Page(driver, server).open()
    settle(page)
    if not page.js("return document.getElementById('panel-details').open"):
        driver.find_element("css selector", "#panel-details > summary").click()
    violations = axe_violations(driver, source)
    print(f"axe at {size}: {[(v['id'], v['impact']) for v in violations]}")
    assert not violations, violations  # none at all, moderate and minor ones too
