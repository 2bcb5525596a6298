"""Jumps as a person makes them, for the benchmarks: real input through Chromium's input pipeline (CDP
`Input.dispatchKeyEvent` / `dispatchMouseEvent`), the same input for the page and for the plain page
of lazy images, so that what each page does with a jump (report it, fetch its rows) is what a user gets.

  key:End, key:Home, key:PageDown, key:PageUp   a key pressed on the focused list (the page moves its
                                                 list itself; the plain page's document is scrolled by
                                                 the browser)
  track:F                                        a shift-click in the scrollbar's track at fraction F of
                                                 the scroll range (Chromium moves the thumb there at once)

The time of a jump (its stop) is its last scroll event; `arm()` in lazy_loading's probe watches from
just before the input and answers once every row on screen shows its final image after it.
"""
from __future__ import annotations

# Windows virtual key codes, which Chromium's keyboard scrolling reads.
KEYS = {"End": 35, "Home": 36, "PageDown": 34, "PageUp": 33}
SHIFT = 8

# Where to click in the scroller's track for a scroll position: the list's own scrollbar on the page,
# the document's on the plain page. The track lies between the arrow buttons (as tall as the bar is
# wide); a shift-click centres the thumb (as long as the track times the visible share) on the click.
TRACK = """
const [fraction] = arguments;
const bench = window.__bench, s = bench.scroller(), product = bench.product();
const rect = product ? s.getBoundingClientRect() : { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
const bar = product ? s.offsetWidth - s.clientWidth : innerWidth - document.documentElement.clientWidth;
const top = rect.top + bar, length = rect.bottom - bar - top;
const view = product ? s.clientHeight : innerHeight;
const thumb = Math.max(bar, length * view / s.scrollHeight);
return { bar, x: rect.right - bar / 2, y: top + thumb / 2 + fraction * (length - thumb) };
"""


def press(driver, key: str) -> None:
    """Presses and releases `key` (one of KEYS) on the focused element."""
    code = KEYS[key]
    fields = {"key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
    driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", **fields})
    driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", **fields})


def track_click(driver, fraction: float) -> None:
    """Shift-clicks the scroller's track where its thumb stands at `fraction` of the scroll range."""
    point = driver.execute_script(TRACK, fraction)
    if point["bar"] <= 0:
        raise SystemExit("the browser shows no scrollbar to click (overlay or hidden scrollbars)")
    where = {"x": point["x"], "y": point["y"]}
    driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", **where})
    for kind in ("mousePressed", "mouseReleased"):
        driver.execute_cdp_cmd("Input.dispatchMouseEvent",
                               {"type": kind, "button": "left", "clickCount": 1, "modifiers": SHIFT, **where})


def perform(driver, how: str) -> None:
    """Makes the jump `how` ("key:End", "track:0.5", ...)."""
    kind, _, value = how.partition(":")
    if kind == "key":
        press(driver, value)
    elif kind == "track":
        track_click(driver, float(value))
    else:
        raise ValueError(f"unknown jump {how!r}")


def focus_list(driver) -> None:
    """Gives the page's list the keyboard focus (its one tab stop), as a click or Tab would; the plain
    page's document has it already."""
    driver.execute_script("const list = document.getElementById('list'); if (list) list.focus();")


def jump(driver, how: str, timeout_ms: float) -> dict:
    """Makes the jump `how` and waits until every row on screen after it shows its final image:
    {stop, ttv, first, last, input} on the page's clock (ttv None after `timeout_ms`)."""
    driver.execute_script("window.__bench.arm(arguments[0])", timeout_ms)
    perform(driver, how)
    return driver.execute_async_script("window.__bench.jump.then(arguments[arguments.length - 1]);")
