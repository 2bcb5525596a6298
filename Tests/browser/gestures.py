"""Movements as a person makes them, through Chromium's own input pipeline (CDP `Input.*`), for the
browser tests and Benchmarks/person_input.py: wheel notches, a trackpad's moves and momentum, a finger's
fling, an arrow key held down, a drag of the scrollbar's thumb. Each call returns once its last input
event has been handled by the browser (CDP answers a dispatched event after the page saw it)."""
from __future__ import annotations

import time

# Where a scroller's scrollbar thumb is (classic scrollbars: arrow buttons as tall as the bar is wide).
THUMB = """
const [selector] = arguments;
const s = selector ? document.querySelector(selector) : document.scrollingElement;
const rect = selector ? s.getBoundingClientRect() : { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
const bar = s.offsetWidth - s.clientWidth;
const top = rect.top + bar, length = rect.bottom - rect.top - 2 * bar;
const thumb = Math.max(bar, length * s.clientHeight / s.scrollHeight);
const range = Math.max(1, s.scrollHeight - s.clientHeight);
return { bar, x: rect.right - bar / 2, y: top + thumb / 2 + (length - thumb) * s.scrollTop / range,
         travel: length - thumb, range };
"""

# Windows virtual key codes, which Chromium's keyboard handling reads.
KEY_CODES = {"ArrowDown": 40, "ArrowUp": 38, "PageDown": 34, "PageUp": 33, "End": 35, "Home": 36, "Enter": 13}


def center_of(driver, selector: str) -> tuple[float, float]:
    rect = driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return [r.left + r.width / 2, r.top + r.height / 2];", selector)
    return rect[0], rect[1]


def _mouse(driver, **fields):
    driver.execute_cdp_cmd("Input.dispatchMouseEvent", fields)


def _paced(count: int, interval_s: float, catch_up: bool = True):
    """Yields 0..count-1 at `interval_s` apart on a fixed schedule (a late event does not delay the rest);
    without `catch_up`, each at least `interval_s` after the one before (a late one delays the rest)."""
    start = time.monotonic()
    for n in range(count):
        wait = start + n * interval_s - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        if not catch_up:
            start = time.monotonic() - n * interval_s
        yield n


def wheel(driver, x: float, y: float, notches: int, interval_s: float, delta: float = 120,
          catch_up: bool = True, delivered: list[float] | None = None) -> None:
    """Turns a mouse wheel: `notches` notches of `delta` px, `interval_s` apart, over (x, y) (without
    `catch_up`, a notch delivered late does not bring the next one closer: a reader's pace). Each notch
    carries the time the hand turned it, as an operating system stamps its input: a loaded machine
    delivers a notch late, it does not make the hand slower (with `catch_up`, its time on the schedule).
    With `delivered`, notch n reaches the browser `delivered[n]` s after the first was made (a machine
    too busy to keep up: each notch later than the one before)."""
    _mouse(driver, type="mouseMoved", x=x, y=y)
    start = time.time()
    for n in _paced(notches, interval_s, catch_up):
        if delivered:
            time.sleep(max(0.0, start + delivered[n] - time.time()))
        stamp = start + n * interval_s if catch_up else time.time()
        _mouse(driver, type="mouseWheel", x=x, y=y, deltaX=0, deltaY=delta, timestamp=stamp)


def trackpad(driver, x: float, y: float, moves: int = 12, move: float = 24, decay: float = 0.92,
             frame_s: float = 0.016) -> None:
    """Two fingers on a trackpad: `moves` pixel-precise moves of `move` px a frame, then their momentum
    (the same, shrinking by `decay` a frame until under a pixel), as a trackpad's driver sends them."""
    deltas = [move] * moves
    while deltas[-1] * decay >= 1:
        deltas.append(deltas[-1] * decay)
    _mouse(driver, type="mouseMoved", x=x, y=y)
    for n in _paced(len(deltas), frame_s):
        _mouse(driver, type="mouseWheel", x=x, y=y, deltaX=0, deltaY=round(deltas[n], 2))


def fling(driver, x: float, y: float, distance: float, moves: int = 8, frame_s: float = 0.016) -> None:
    """A finger's fling: a quick upward swipe of `distance` px from (x, y) in `moves` moves a frame apart,
    let go while moving, so the list coasts on (Chromium turns the touches into a scroll and its fling).
    The touches carry their own time stamps a frame apart: the fling's speed is measured from them, and
    the time CDP takes to deliver each would otherwise make it a different swipe each time."""
    start = time.time()

    def touch(kind, points, n):
        driver.execute_cdp_cmd("Input.dispatchTouchEvent",
                               {"type": kind, "touchPoints": points, "timestamp": start + n * frame_s})
    touch("touchStart", [{"x": x, "y": y}], 0)
    for n in range(moves):
        touch("touchMove", [{"x": x, "y": y - distance * (n + 1) / moves}], n + 1)
    touch("touchEnd", [], moves + 1)


def hold_key(driver, key: str, repeats: int, interval_s: float = 0.033, delay_s: float = 0.5) -> None:
    """Holds `key` down: its press, then after `delay_s` an auto-repeat every `interval_s`, `repeats`
    times, then its release (a keyboard's auto-repeat: 500 ms, then about 30 a second)."""
    code = KEY_CODES[key]
    fields = {"key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
    driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", **fields})
    time.sleep(delay_s)
    for _ in _paced(repeats, interval_s):
        driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "rawKeyDown", "autoRepeat": True, **fields})
    driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", **fields})


def drag_scrollbar(driver, selector: str, fraction: float, steps: int = 20, interval_s: float = 0.03,
                   hold_s: float = 0.0, grab_s: float = 0.2) -> None:
    """Drags the scrollbar thumb of `selector` (None: the document): pressed, still for `grab_s`, moved
    until the scroll position is at `fraction` of its range in `steps` moves `interval_s` apart, held
    `hold_s`, and let go."""
    thumb = driver.execute_script(THUMB, selector)
    if thumb["bar"] <= 0:
        raise RuntimeError("the browser shows no scrollbar to drag (overlay or hidden scrollbars)")
    x, y = thumb["x"], thumb["y"]
    target = y + (fraction * thumb["range"] - driver.execute_script(
        "const s = arguments[0] ? document.querySelector(arguments[0]) : document.scrollingElement;"
        "return s.scrollTop;", selector)) * thumb["travel"] / thumb["range"]
    _mouse(driver, type="mouseMoved", x=x, y=y)
    _mouse(driver, type="mousePressed", x=x, y=y, button="left", buttons=1, clickCount=1)
    time.sleep(grab_s)  # a person's hand starts moving a moment after the press
    for n in _paced(steps, interval_s):
        _mouse(driver, type="mouseMoved", x=x, y=y + (target - y) * (n + 1) / steps, button="left", buttons=1)
    # A person watches the thumb: when the list's height changed under the drag (the introduction folds at
    # a first visit's first scroll), the hand goes on to where the thumb stands at `fraction` now.
    now = driver.execute_script(THUMB, selector)
    top = driver.execute_script(
        "const s = arguments[0] ? document.querySelector(arguments[0]) : document.scrollingElement;"
        "return s.scrollTop;", selector)
    if now["range"] > 0 and abs(fraction * now["range"] - top) * now["travel"] / now["range"] >= 1:
        target += (fraction * now["range"] - top) * now["travel"] / now["range"]
        _mouse(driver, type="mouseMoved", x=x, y=target, button="left", buttons=1)
    time.sleep(hold_s)
    _mouse(driver, type="mouseReleased", x=x, y=target, button="left", buttons=0, clickCount=1)


def track_click(driver, selector: str, fraction: float, hold: bool = False) -> dict:
    """A jump: a shift-click in the scrollbar's track of `selector` where the thumb stands at `fraction` of
    the range (Chromium moves the thumb there at the press). With `hold`, the button stays down (let go
    with `release(driver, at)`, `at` what this returns)."""
    thumb = driver.execute_script(THUMB, selector)
    at = {"x": thumb["x"], "y": thumb["y"] - thumb["travel"] * driver.execute_script(
        "const s = document.querySelector(arguments[0]); return s.scrollTop / Math.max(1, s.scrollHeight - s.clientHeight);",
        selector) + thumb["travel"] * fraction}
    before = driver.execute_script("return document.querySelector(arguments[0]).scrollTop", selector)
    _mouse(driver, type="mouseMoved", **at)
    _mouse(driver, type="mousePressed", button="left", buttons=1, clickCount=1, modifiers=8, **at)
    if not hold:
        release(driver, at)
    # CDP answers once the press is dispatched, not once the list has moved: what a test reads next
    # (the page's visible rows, its last report) must be the jump's, so wait for the move itself.
    moved = driver.execute_async_script("""
        const [selector, before, done] = arguments, scroller = document.querySelector(selector);
        const start = performance.now();
        const check = () => {
            if (scroller.scrollTop !== before) return done(true);
            if (performance.now() - start > 10000) return done(false);
            requestAnimationFrame(check);
        };
        check();""", selector, before)
    assert moved, f"the shift-click in {selector}'s scrollbar track at {fraction} did not move it"
    return at


def track_page(driver, selector: str, hold_s: float = 0.0) -> None:
    """A page: a plain click in the scrollbar's track of `selector`, near its bottom end (below the
    thumb), let go after `hold_s` (a person's click lasts about 0.1 s; from 0.25 s Chromium pages again
    and again)."""
    thumb = driver.execute_script(THUMB, selector)
    bottom = driver.execute_script("return document.querySelector(arguments[0]).getBoundingClientRect().bottom", selector)
    at = {"x": thumb["x"], "y": bottom - 2 * thumb["bar"] - 10}
    _mouse(driver, type="mouseMoved", **at)
    _mouse(driver, type="mousePressed", button="left", buttons=1, clickCount=1, **at)
    time.sleep(hold_s)  # the person's finger on the button, not a wait for the page
    _mouse(driver, type="mouseReleased", button="left", buttons=0, clickCount=1, **at)


def release(driver, at: dict) -> None:
    """Lets go of the mouse's left button at `at` (a press of `track_click(..., hold=True)`)."""
    _mouse(driver, type="mouseReleased", button="left", buttons=0, clickCount=1, modifiers=8, **at)


def phone(driver, width: int = 390, height: int = 844) -> None:
    """Makes the window a phone's: that viewport, a touch screen."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})


def laptop(driver, width: int = 1366, height: int = 768) -> None:
    """Makes the window's viewport a laptop's."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
