"""Jumps and scrolls as a person makes them, for the benchmarks and the browser tests: real input through
Chromium's input pipeline (CDP `Input.dispatchKeyEvent` / `dispatchMouseEvent` / `dispatchTouchEvent` /
`synthesizeScrollGesture`), the same input for the page and for the plain page of lazy images, so that
what each page does with it (report it, fetch its rows) is what a user gets.

  key:End, key:Home, key:PageDown, key:PageUp   a key pressed on the focused list (the page moves its
                                                 list itself; the plain page's document is scrolled by
                                                 the browser)
  track:F                                        a shift-click in the scrollbar's track at fraction F of
                                                 the scroll range (Chromium moves the thumb there at once)

The time of a jump (its stop) is its last scroll event; `arm()` in lazy_loading's probe watches from
just before the input and answers once every row on screen shows its final image after it.

Movements (issue 35), each one scroll until it stops (gestures.py holds them):
  wheel notches, a trackpad's moves and momentum, a finger's fling (on a phone-sized window), an arrow
  key held down (auto-repeat), a drag of the scrollbar's thumb.

Run as a script, it prints the gaps between the events each movement makes in headless Chromium (wheel,
scroll, scrollend, touch, key, pointer), on a plain scrolling list at 1366x768 (390x844 for the finger):
what the page's stop detection (Public/scroll-end.js) has to tell apart from a stop. With --figures, the
page under each movement instead, each run on a fresh server over cold rows (a shift-click jump in the
same run for comparison): the badge, the downloads started and cancelled, and the time from the
movement's end to every whole row on screen final.

  python3 person_input.py [--runs 3]               # the gaps
  python3 person_input.py --figures [--runs 3]     # the page under each movement (common.BINARY)
"""
from __future__ import annotations

import shutil
import time

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


# How long a click in the scrollbar's track holds the button down, in seconds: 0 lets go at once; a
# person's click lasts about 0.1 s (first_pixels.py --click-ms).
CLICK_HOLD_S = 0.0


def track_click(driver, fraction: float) -> None:
    """Shift-clicks the scroller's track where its thumb stands at `fraction` of the scroll range,
    holding the button CLICK_HOLD_S."""
    point = driver.execute_script(TRACK, fraction)
    if point["bar"] <= 0:
        raise SystemExit("the browser shows no scrollbar to click (overlay or hidden scrollbars)")
    where = {"x": point["x"], "y": point["y"]}
    driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", **where})
    for kind in ("mousePressed", "mouseReleased"):
        if kind == "mouseReleased" and CLICK_HOLD_S > 0:
            time.sleep(CLICK_HOLD_S)  # the person's finger on the button, not a wait for the page
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


# ------------------------------------------------------------------------------------------------
# The gaps each movement makes (run as a script).

PLAIN_LIST = """<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1">
<style>html, body { margin: 0; height: 100%; } body { display: flex; flex-direction: column; }
header { height: 56px; flex: none; } #list { flex: 1; min-height: 0; overflow-y: auto; }
.row { height: 80px; box-sizing: border-box; border-bottom: 1px solid #ccc; }</style>
<header></header><div id="list" tabindex="0"></div>
<script>
const list = document.getElementById('list');
for (let i = 0; i < 400; i++) { const row = document.createElement('div'); row.className = 'row'; row.textContent = 'row ' + i; list.append(row); }
window.__events = [];
for (const type of ['wheel', 'scroll', 'scrollend', 'touchstart', 'touchmove', 'touchend', 'pointerdown', 'pointerup', 'keydown', 'keyup']) {
  list.addEventListener(type, (e) => __events.push([type, performance.now()]), { passive: true });
}
</script>"""

TYPES = ("wheel", "scroll", "scrollend", "touchmove", "keydown")


def gaps_of(events: list[list]) -> dict:
    """Per event type: count, and gaps between successive events (p50, max), in ms; and the tail: from
    the last input event to the last scroll event (momentum)."""
    out = {}
    for kind in TYPES:
        times = [t for name, t in events if name == kind]
        gaps = sorted(b - a for a, b in zip(times, times[1:]))
        out[kind] = (len(times), gaps[len(gaps) // 2] if gaps else None, gaps[-1] if gaps else None)
    inputs = [t for name, t in events if name in ("wheel", "touchend", "pointerup", "keyup")]
    scrolls = [t for name, t in events if name == "scroll"]
    out["tail"] = (scrolls[-1] - inputs[-1]) if inputs and scrolls else None
    return out


def measure(driver, page_url: str, name: str, move, runs: int) -> list[dict]:
    results = []
    for _ in range(runs):
        driver.get(page_url)
        driver.execute_script("document.getElementById('list').focus()")
        move(driver)
        time.sleep(1.5)  # the momentum's end, and scrollend after it
        results.append(gaps_of(driver.execute_script("return window.__events")))
    return results


# The page under each movement: the badge, what the movement cost, how soon its stop's rows are final.
PROBE = """
    const list = document.getElementById('list'), queue = document.getElementById('dl-queue');
    const probe = window.__probe = { lastScroll: 0, badge: false, scrolled: false };
    // The movement's end: its last scroll, or the release of what held it (a thumb held still)
    const moved = () => { probe.lastScroll = performance.now(); };
    list.addEventListener('scroll', () => { probe.scrolled = true; moved(); }, { passive: true });
    for (const type of ['pointerup', 'keyup', 'touchend']) window.addEventListener(type, moved, { capture: true, passive: true });
    new MutationObserver(() => { if (queue.classList.contains('is-suspended')) probe.badge = true; })
        .observe(queue, { attributes: true, attributeFilter: ['class'] });
"""

# Resolves with the time from the movement's last scroll event to the frame in which every whole row on
# screen first shows its final image (null after `timeoutMs`).
FINAL = """
    const [timeoutMs, done] = arguments;
    const list = document.getElementById('list'), probe = window.__probe, start = performance.now();
    // Every whole row at the list's scroll position, each drawn and showing its final image (not
    // "every row element inside the box": in the frame a jump lands, the rows there may not be
    // drawn yet, and none inside the box would pass for all of them).
    const rowHeight = Number(document.body.dataset.rowHeight);
    const final = () => {
        const first = Math.ceil(list.scrollTop / rowHeight);
        const last = Math.floor((list.scrollTop + list.clientHeight) / rowHeight) - 1;
        if (last < first) return false;
        for (let i = first; i <= last; i += 1) {
            const row = document.getElementById('row-' + i), img = row && row.querySelector('img.thumb');
            if (!img || row.hidden) return false;
            const src = img.getAttribute('src') || '';
            if (!(img.complete && img.naturalWidth > 0 && (src.endsWith('/thumbnail') || src.includes('failed')))) return false;
        }
        return true;
    };
    const bench = window.__bench;
    if (bench) { bench.rows = classicPhotos.count; bench.listHeight = list.clientHeight; }
    const frame = () => {
        const now = performance.now();
        if (bench) bench.allDone(); // marks each row's frame on screen, for the chain
        // (not before the list has moved: a jump's scroll can come after this script began)
        if (probe.scrolled && !classicPhotos.scrolling && final()) return done(now - probe.lastScroll);
        if (now - start > timeoutMs) return done(null);
        requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
"""


def idle(server) -> bool:
    stats = server.stats()
    return not any(stats[q][f] for q in ("downloads", "filtrations") for f in ("pending", "executing"))


def figures(runs: int, only: str | None = None) -> None:
    """Per movement, on a fresh server each run (cold rows): downloads started and cancelled during the
    movement and its stop, the badge, and the time from the movement's end to every whole row final."""
    center = (480, 400)
    movements = [
        ("jump (shift-click to the middle)", gestures.laptop, lambda d: gestures.track_click(d, "#list", 0.5)),
        ("page (a click in the track, 100 ms)", gestures.laptop, lambda d: gestures.track_page(d, "#list", 0.1)),
        ("wheel, 25 notches 100 ms apart", gestures.laptop, lambda d: gestures.wheel(d, *center, 25, 0.100)),
        ("trackpad, moves and momentum", gestures.laptop, lambda d: gestures.trackpad(d, *center, moves=20, move=60)),
        ("arrow key held 2 s", gestures.laptop, lambda d: gestures.hold_key(d, "ArrowDown", 60)),
        ("scrollbar thumb dragged", gestures.laptop, lambda d: gestures.drag_scrollbar(d, "#list", 0.5, hold_s=0.3)),
        ("finger fling (390x844)", gestures.phone, lambda d: gestures.fling(d, 195, 600, 400)),
    ]
    if only:
        movements = [m for m in movements if m[0].startswith("jump") or only in m[0]]
    rows, chains, jump_p50 = [], [], None
    print(f"{runs} runs a movement, each on a fresh server (300 photos, origin 100 ms, 2 MB/s); {common.machine()}")
    for name, window, move in movements:
        results = []
        for _ in range(runs):
            load = os.getloadavg()[0]
            with common.Server(["--photo-count", "300", "--sample-latency-ms", "100",
                                "--sample-bandwidth", "2000000"]) as server:
                driver = browser()
                driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": lazy_loading.PROBE})
                try:
                    window(driver)
                    driver.get(f"http://{common.HOST}:{server.port}/")
                    deadline = time.monotonic() + 120
                    while not (driver.execute_script("return !!(window.classicPhotos && classicPhotos.count)")
                               and idle(server)) and time.monotonic() < deadline:
                        time.sleep(0.2)
                    time.sleep(0.5)
                    while not idle(server):
                        time.sleep(0.2)
                    driver.execute_script(PROBE)
                    driver.execute_script(movement_chain.MOVEMENT)
                    driver.execute_script("document.getElementById('list').focus({ preventScroll: true })")
                    before = server.stats()["downloads"]
                    move(driver)
                    ttv = driver.execute_async_script(FINAL, 30000)
                    end = driver.execute_script("return window.__probe.lastScroll")
                    collected = driver.execute_script(movement_chain.COLLECT)
                    while not idle(server):
                        time.sleep(0.2)
                    after = server.stats()["downloads"]
                    results.append({"ttv": ttv, "badge": driver.execute_script("return window.__probe.badge"),
                                     "started": after["started"] - before["started"],
                                     "cancelled": after["cancelled"] - before["cancelled"], "load": load,
                                     "links": movement_chain.links_of(collected, end, end + (ttv or 0))})
                finally:
                    driver.quit()
        ttvs = sorted(r["ttv"] for r in results if r["ttv"] is not None)
        p50 = ttvs[len(ttvs) // 2] if ttvs else None
        if jump_p50 is None:
            jump_p50 = p50
        chains.append([name, *movement_chain.merge([r["links"] for r in results])])
        rows.append([name, len(results), sum(r["badge"] for r in results),
                     "/".join(str(r["started"]) for r in results), "/".join(str(r["cancelled"]) for r in results),
                     f"{ttvs[len(ttvs) // 2]:.0f}" if ttvs else "-", f"{ttvs[-1]:.0f}" if ttvs else "-",
                     f"{min(r['load'] for r in results):.1f}-{max(r['load'] for r in results):.1f}",
                     f"{p50 / jump_p50:.2f}x" if p50 and jump_p50 else "-"])
    print("started / cancelled: downloads during the movement and its stop, per run; end -> final: from the")
    print("movement's end (its last scroll event, or the release of the key, thumb or finger, whichever is later)")
    print("to the frame where every whole row on screen shows its final image")
    print(common.table(["movement", "runs", "badge shown", "started", "cancelled", "end->final p50 ms",
                        "max ms", "load", "/ jump p50"], rows))
    print("where the time goes: medians over the runs' whole rows on screen at the end (ms, page clock; "
          "see movement_chain.py)")
    print(common.table(["movement", *movement_chain.LINKS], chains))


def main() -> None:
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--figures", action="store_true",
                        help="the page under each movement (badge, downloads, end -> rows final) instead of the gaps")
    parser.add_argument("--only", help="with --figures: the jump and the movements whose name contains this")
    parser.add_argument("--binary", type=Path, help="the server (default: the release build of scripts/bench.sh)")
    common.page_options(parser)  # with --figures
    args = parser.parse_args()
    if args.binary:
        common.BINARY = args.binary.resolve()
    if args.figures:
        common.use_page(args)
        figures(args.runs, args.only)
        return
    folder = Path(tempfile.mkdtemp(prefix="person-input-"))
    (folder / "list.html").write_text(PLAIN_LIST)
    url = (folder / "list.html").as_uri()
    driver = browser()
    center = (683, 400)
    movements = [
        ("wheel, 25 notches 100 ms apart", gestures.laptop, lambda d: gestures.wheel(d, *center, 25, 0.100)),
        ("wheel, 6 notches 500 ms apart", gestures.laptop, lambda d: gestures.wheel(d, *center, 6, 0.500)),
        ("trackpad, moves and momentum", gestures.laptop, lambda d: gestures.trackpad(d, *center)),
        ("arrow key held 1 s", gestures.laptop, lambda d: gestures.hold_key(d, "ArrowDown", 30)),
        ("scrollbar thumb dragged", gestures.laptop, lambda d: gestures.drag_scrollbar(d, "#list", 0.5)),
        ("finger fling (390x844)", gestures.phone, lambda d: gestures.fling(d, 195, 700, 400)),
    ]
    print(f"headless Chromium {driver.capabilities.get('browserVersion')}, {args.runs} runs each; {common.machine()}")
    rows = []
    try:
        for name, window, move in movements:
            window(driver)
            for result in measure(driver, url, name, move, args.runs):
                cells = [name]
                for kind in TYPES:
                    count, p50, top = result[kind]
                    cells.append(f"{count}" if not count else f"{count}: {p50 or 0:.0f}/{top or 0:.0f}")
                cells.append("-" if result["tail"] is None else f"{result['tail']:.0f}")
                rows.append(cells)
    finally:
        driver.quit()
    print("count: gap p50 / max (ms) between successive events of a kind; tail: last input -> last scroll")
    print(common.table(["movement", *TYPES, "tail ms"], rows))


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1366,768",
                     "--disable-gpu", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)


if __name__ == "__main__":
    import os
    import sys
    import time
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Tests" / "browser"))
    import common  # noqa: E402
    import gestures  # noqa: E402
    import lazy_loading  # noqa: E402
    import movement_chain  # noqa: E402
    main()
