"""Where the page's main thread goes during jumps (issue 38), from Chromium's own trace.

first_pixels.py shows the page hearing the server's events 50-100 ms after they left it and showing a
final thumbnail about 50 ms after its answer came. This plays `--jumps` shift-clicks in the scrollbar's
track (as first_pixels.py, same origin and server set-up) with Chromium's tracing (devtools.timeline) and
its JavaScript sampling profiler on, then prints, per thread, the time in its trace events by name
(nested events counted in their parents too; the page's load included: ChromeDriver hands the trace
over once), the renderer main thread's counts of frames, layouts and paints, the long tasks the page
saw during the jumps, and the JavaScript functions with the most self time during them.

`--page-script JS` runs on the page before the jumps (for example hiding the panel, or turning every
animation off), so one run says what a part of the page costs. Printed, not judged.

  python3 Benchmarks/page_trace.py [--jumps 10] [--page-script JS] [--binary PATH]
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import time
from pathlib import Path

import common
import person_input
from common import HOST, log
from lazy_loading import STOP_TIMEOUT, browser

LATENCY_MS, BANDWIDTH = 150, 2_000_000
CATEGORIES = "devtools.timeline,disabled-by-default-devtools.timeline"
COUNTED = ("FireAnimationFrame", "UpdateLayoutTree", "Layout", "PrePaint", "Paint", "Commit")


def play(port: int, count: int, jumps: int, page_script: str | None) -> tuple[list[dict], dict, list[list[float]]]:
    """The trace events, the JavaScript profile and the long tasks of `jumps` seeded jumps."""
    driver = browser(CATEGORIES)
    try:
        driver.get(f"http://{HOST}:{port}/")
        driver.execute_async_script("""const [rows, timeoutMs, done] = arguments;
            window.__bench.rows = rows; window.__bench.waitDone(timeoutMs).then(done);""", count, STOP_TIMEOUT * 1000)
        height = driver.execute_script("return window.__bench.scroller().clientHeight")
        driver.execute_script("window.__bench.listHeight = arguments[0]", height)
        driver.execute_script("""window.__longTasks = [];
            new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
              .observe({ type: 'longtask' });""")
        if page_script:
            driver.execute_script(page_script)
        person_input.focus_list(driver)
        driver.execute_cdp_cmd("Profiler.enable", {})
        driver.execute_cdp_cmd("Profiler.setSamplingInterval", {"interval": 200})
        driver.execute_cdp_cmd("Profiler.start", {})
        rng = random.Random(29)
        for _ in range(jumps):
            person_input.jump(driver, f"track:{rng.random():.4f}", STOP_TIMEOUT * 1000)
            time.sleep(1.0)
        profile = driver.execute_cdp_cmd("Profiler.stop", {})["profile"]
        long_tasks = driver.execute_script("return window.__longTasks")
        # ChromeDriver hands the trace over once, when tracing ends: the page's load is in it too.
        trace = trace_events(driver)
    finally:
        driver.quit()
    return trace, profile, long_tasks


def trace_events(driver) -> list[dict]:
    """The trace events in the performance log."""
    events = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") != "Tracing.dataCollected":
            continue
        # ChromeDriver logs each trace event as an entry of its own (params: the event).
        params = message["params"]
        events.extend(params["value"] if "value" in params else [params])
    return events


def report(trace: list[dict], profile: dict, long_tasks: list[list[float]]) -> None:
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in trace if e.get("ph") == "M" and e.get("name") == "thread_name"}
    by_thread: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    counts: collections.Counter = collections.Counter()
    for e in trace:
        if e.get("ph") != "X" or "dur" not in e:
            continue
        thread = threads.get((e["pid"], e["tid"]), "?")
        by_thread[thread][e["name"]] += e["dur"]
        if thread == "CrRendererMain":
            counts[e["name"]] += 1
    log("the renderer main thread's events: " + ", ".join(f"{name} {counts[name]}" for name in COUNTED))
    durations = sorted(d for _, d in long_tasks)
    log(f"long tasks the page saw: {len(durations)}, {sum(durations):.0f} ms in all, the longest {durations[-5:]} ms")
    for thread, names in sorted(by_thread.items(), key=lambda item: -sum(item[1].values())):
        if sum(names.values()) < 100_000:
            continue
        log(f"{thread}: " + ", ".join(f"{name} {us / 1000:.0f} ms" for name, us in names.most_common(8)))
    nodes = {node["id"]: node for node in profile["nodes"]}
    self_time: collections.Counter = collections.Counter()
    for sample, delta in zip(profile["samples"], profile["timeDeltas"][1:] + [0]):
        frame = nodes[sample]["callFrame"]
        self_time[f"{frame['functionName'] or '(anonymous)'} {frame['url'].rsplit('/', 1)[-1]}:{frame['lineNumber'] + 1}"] += delta
    log("JavaScript self time: " + ", ".join(f"{name} {us / 1000:.0f} ms" for name, us in self_time.most_common(14)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jumps", type=int, default=10, help="jumps to play (default 10)")
    parser.add_argument("--page-script", help="JavaScript run on the page before the jumps")
    parser.add_argument("--binary", type=Path, help="the server (default: the release build of scripts/bench.sh)")
    args = parser.parse_args()
    if args.binary:
        common.BINARY = args.binary.resolve()
    log(f"The page's main thread during {args.jumps} jumps (Chromium's trace); load {os.getloadavg()[0]:.1f} at the start"
        + (f"; page script: {args.page_script}" if args.page_script else ""))
    with common.behind_sample_origin(LATENCY_MS, BANDWIDTH) as (server, photos, _):
        trace, profile, long_tasks = play(server.port, len(photos), args.jumps, args.page_script)
    report(trace, profile, long_tasks)
    log(f"(load {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
