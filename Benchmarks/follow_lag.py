"""Issue 37: how far a follower's screen trails its presenter's, on the pages' own clocks.

Two headless Chromiums on one server (release build): a presenter at 1366x768 who opened `/?present`, and
a follower who opened its share link (at 1366x768, or a phone's 390x844 with `--phone`). The presenter
makes each movement a person makes, through Chromium's input pipeline (gestures.py: wheel notches read
one at a time, a long wheel, a trackpad's moves and momentum, an arrow key held, the scrollbar's thumb
dragged, a shift-click in its track, and, with the presenter's window a phone's, a finger's fling).

On the presenter's page every scroll event records its first row on screen and the time; the follower's
page records each move it applies (`classicPhotos.presentation.trail`). Both clocks are the machine's
(`performance.timeOrigin + performance.now()`, one machine). For each move of the follower to row R, its
lag is the time since the presenter's screen began showing R at its top (the start of the presenter's
latest stretch at R before the move): what someone watching both screens would see. Printed per
movement: moves, the presenter's and the follower's times after the input began (p50), and the lag
p50 / p95 / max; then over all movements.

  python3 Benchmarks/follow_lag.py [--runs 3] [--phone] [--binary PATH [--public-dir DIR --templates-dir DIR]]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Tests" / "browser"))
import common  # noqa: E402
import gestures  # noqa: E402
from lazy_loading import NOT_2XX  # noqa: E402
from person_input import browser, press  # noqa: E402

# The presenter's screen: each scroll event's first row, on the machine's clock (after the page's own
# listener, so `visibleRange` is the one this event made).
WATCH = """
window.__trail = [];
document.getElementById('list').addEventListener('scroll', () => {
  const v = classicPhotos.visibleRange();
  if (v) window.__trail.push([v.first, performance.timeOrigin + performance.now()]);
}, { passive: true });
"""
FOLLOWER_TRAIL = """
return classicPhotos.presentation.trail.map((m) => [m.first, performance.timeOrigin + m.at, m.scrolling]);
"""
NOW = "return performance.timeOrigin + performance.now();"
CENTER = (480, 400)

MOVEMENTS = [
    ("reading: 6 lone notches 800 ms apart", "laptop", lambda d: gestures.wheel(d, *CENTER, 6, 0.8, catch_up=False)),
    ("wheel, 25 notches 100 ms apart", "laptop", lambda d: gestures.wheel(d, *CENTER, 25, 0.100)),
    ("trackpad, moves and momentum", "laptop", lambda d: gestures.trackpad(d, *CENTER, moves=20, move=60)),
    ("arrow key held 2 s", "laptop", lambda d: gestures.hold_key(d, "ArrowDown", 60)),
    ("scrollbar thumb dragged", "laptop", lambda d: gestures.drag_scrollbar(d, "#list", 0.3, hold_s=0.3)),
    ("jump (shift-click in the track)", "laptop", None),
    ("finger fling (presenter on a phone)", "phone", lambda d: gestures.fling(d, 195, 600, 400)),
]


def wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out: {what}")
        time.sleep(0.05)


def first_row(driver) -> int:
    return driver.execute_script("return classicPhotos.visibleRange().first")


def settled(presenter, follower) -> bool:
    """The presenter's stop is acknowledged and the follower shows its rows."""
    state = presenter.execute_script("""
        const c = classicPhotos, r = c.reports, a = r.lastAcknowledged, v = c.visibleRange();
        return !!(v && !c.scrolling && !r.inFlight && !r.pending && a && a.scrolling === false && a.first === v.first);""")
    return state and first_row(follower) == first_row(presenter)


def lags(presenter_trail: list, follower_trail: list, began: float) -> list[tuple[float, float, float]]:
    """(presenter's time, follower's time, lag) for each move of the follower to a new row after `began`."""
    out, previous = [], None
    for first, at, _scrolling in follower_trail:
        moved, previous = first != previous, first
        if at < began or not moved:
            continue
        shown = [i for i, (row, when) in enumerate(presenter_trail) if row == first and when <= at]
        if not shown:
            continue
        i = shown[-1]
        while i > 0 and presenter_trail[i - 1][0] == first:
            i -= 1
        start = presenter_trail[i][1]
        if start < began:
            continue  # the presenter was there before this movement: the follower caught up with an earlier one
        out.append((start - began, at - began, at - start))
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="times each movement is made")
    parser.add_argument("--phone", action="store_true", help="the follower's window a phone's (390x844)")
    parser.add_argument("--binary", type=Path, help="the server (default: the release build of scripts/bench.sh)")
    common.page_options(parser)
    args = parser.parse_args()
    if args.binary:
        common.BINARY = args.binary.resolve()
    common.use_page(args)
    load = os.getloadavg()[0]
    rows, every = [], []
    with common.Server(["--photo-count", "1000", "--sample-latency-ms", "100", "--sample-bandwidth", "2000000"]) as server:
        presenter, follower = browser(), browser()
        try:
            gestures.laptop(presenter)
            (gestures.phone if args.phone else gestures.laptop)(follower)
            presenter.get(f"http://{common.HOST}:{server.port}/?present")
            wait(lambda: presenter.execute_script("return !!(window.classicPhotos && classicPhotos.presentation.link)"),
                 60, "presenting never started")
            follower.get(presenter.execute_script("return classicPhotos.presentation.link"))
            wait(lambda: follower.execute_script(
                "return !!(window.classicPhotos && classicPhotos.count && classicPhotos.presentation.following)"),
                60, "the follower never followed")
            wait(lambda: presenter.execute_script("return classicPhotos.presentation.followers") == 1, 30,
                 "the presenter never counted its follower")
            presenter.execute_script(WATCH)
            for driver in (presenter, follower):  # every answer kept (250 by default)
                driver.execute_script("performance.setResourceTimingBufferSize(100000)")
            fractions = iter([0.15, 0.6, 0.3, 0.8, 0.45, 0.1, 0.7, 0.25, 0.55])
            for name, window, move in MOVEMENTS:
                if window == "phone":
                    gestures.phone(presenter)
                found = []
                for _ in range(args.runs):
                    if move is None:
                        fraction = next(fractions)
                        action = lambda d, f=fraction: gestures.track_click(d, "#list", f)  # noqa: E731
                    else:
                        action = move
                    presenter.execute_script("document.getElementById('list').focus({ preventScroll: true })")
                    if first_row(presenter) > 700:
                        press(presenter, "Home")  # back to the top, so every movement has room below
                    wait(lambda: settled(presenter, follower), 30, f"{name}: the follower never caught up before it")
                    began = presenter.execute_script(NOW)
                    action(presenter)
                    wait(lambda: settled(presenter, follower), 30, f"{name}: the follower never caught up")
                    time.sleep(0.3)
                    found += lags(presenter.execute_script("return window.__trail"),
                                  follower.execute_script(FOLLOWER_TRAIL), began)
                if window == "phone":
                    gestures.laptop(presenter)
                every += [lag for _, _, lag in found]
                rows.append([name, len(found),
                             f"{percentile([p for p, _, _ in found], 50):.0f}" if found else "-",
                             f"{percentile([f for _, f, _ in found], 50):.0f}" if found else "-",
                             *([f"{percentile([lag for _, _, lag in found], q):.0f}" for q in (50, 95)]
                               + [f"{max(lag for _, _, lag in found):.0f}"] if found else ["-"] * 3)])
            for who, driver in (("presenter", presenter), ("follower", follower)):
                for url, status in driver.execute_script(NOT_2XX):
                    print(f"the {who}'s page was answered {status}: {url}")
        finally:
            presenter.quit()
            follower.quit()
    print(f"follow lag: presenter 1366x768, follower {'390x844' if args.phone else '1366x768'}, {args.runs} runs a "
          f"movement, 1,000 photos; load {load:.1f} -> {os.getloadavg()[0]:.1f}; {common.machine()}")
    print("each follower move to a new row: the presenter's screen began showing that row at its top -> the follower's "
          "screen moved there (ms, the machine's clock in both pages); times after the input began")
    print(common.table(["movement", "moves", "presenter shows p50", "follower shows p50", "lag p50", "lag p95", "lag max"],
                       rows))
    if every:
        print(f"all movements: {len(every)} moves, lag p50 {percentile(every, 50):.0f} ms, p95 {percentile(every, 95):.0f} ms, "
              f"max {max(every):.0f} ms")


if __name__ == "__main__":
    main()
