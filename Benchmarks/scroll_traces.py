"""Benchmark 1: scroll traces, per strategy, driven through the lab (`POST /api/labs`).

Each strategy runs as a lab lane, cold (a pipeline of its own, no disk cache), over a 1,000-row list
on the sample origin with a fixed simulated network; a scripted viewer does what the lab page does:
`POST /api/viewport` to each lane's viewer with `scrolling: true` when a scroll starts and the
visible rows when it stops, and it reads the lanes' event streams to know when to move on. The
traces are the lab page's four (Public/lab/traces.js, the same seeded generator):

  flick    rows 0-9, then one fast flick to the bottom
  reading  slow reading down from row 400, half a screen at a time, a pause at each stop
  top      a jump back to the top
  random   jumps to seeded random rows

The figures are the lab's own (`GET /api/labs/ID`, what the page's summary shows): each stop's time
until every visible row is sepia (or failed), measured in the server; bytes downloaded, bytes and
filter CPU spent on rows never visible in the lab, transfers aborted, operations cancelled. By
default each strategy is a lab of its own, one after the other (as the figures were measured before
the lab); `--side-by-side` runs them as the lanes of one lab, as the page does.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import time

from common import (Server, ahttp, log, mb, ms, new_viewer, open_events, percentile, post_viewport, table)
from range_origin import RangeOrigin, sample_photos

DONE = {"filtered", "failed"}


class Viewer:
    """The page's model of the rows: index -> state, kept from snapshots and photo events."""

    def __init__(self, port: int):
        self.port = port
        self.states: dict[int, str] = {}
        self.changed = asyncio.Event()
        self.viewer = ""
        self.stream = None
        self.events = 0

    def on_event(self, event) -> None:
        self.events += 1
        if event.name == "photo":
            photo = json.loads(event.data)
            self.states[photo["index"]] = photo["state"]
            self.changed.set()
        elif event.name == "snapshot":
            for photo in json.loads(event.data)["photos"]:
                self.states[photo["index"]] = photo["state"]
            self.changed.set()

    async def start(self, viewer: str | None = None) -> None:
        self.viewer = viewer or await new_viewer(self.port)
        self.stream = await open_events(self.port, self.viewer, self.on_event)

    def all_done(self, first: int, last: int) -> bool:
        return all(self.states.get(i) in DONE for i in range(first, last + 1))

    async def stop_at(self, first: int, last: int, timeout: float) -> float | None:
        """Reports a scroll stop and waits (bounded) until every visible row is done; seconds or None."""
        start = time.monotonic()
        status = await post_viewport(self.port, self.viewer, False, first, last)
        if status != 204:
            raise RuntimeError(f"viewport -> {status}")
        deadline = start + timeout
        while not self.all_done(first, last):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except asyncio.TimeoutError:
                return None
        return time.monotonic() - start

    async def scroll(self, seconds: float) -> None:
        await post_viewport(self.port, self.viewer, True)
        await asyncio.sleep(seconds)


def mulberry32(seed: int):
    """The lab page's seeded generator (Public/lab/traces.js): floats in [0, 1), the same sequence."""
    state = seed & 0xFFFFFFFF

    def imul(a: int, b: int) -> int:
        return (a * b) & 0xFFFFFFFF

    def next_float() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & 0xFFFFFFFF
        t = state
        t = imul(t ^ (t >> 15), t | 1)
        t ^= (t + imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return next_float


def traces(rows: int, screen: int, seed: int, stops: int) -> list[tuple[str, float, int, float]]:
    """(trace, scroll seconds before the stop, first visible row, dwell seconds after it is done):
    the lab page's `allSteps` (Public/lab/traces.js)."""
    last_first = max(0, rows - screen)
    steps: list[tuple[str, float, int, float]] = [("flick", 0.0, 0, 0.5), ("flick", 0.8, last_first, 0.5)]
    start = min(400, rows * 4 // 10, last_first)
    for i in range(1, stops + 1):
        steps.append(("reading", 0.4, min(last_first, start + i * (screen // 2)), 2.0))
    steps.append(("top", 0.3, 0, 0.5))
    generator = mulberry32(seed)
    for _ in range(stops):
        steps.append(("random", 0.3, int(generator() * (last_first + 1)), 0.5))
    return steps


def impatient(rows: int, screen: int, rounds: int) -> list[tuple[str, float, int, float]]:
    """Back and forth between two places in the list, moving on after a quarter of a second (the
    dwell is the patience here) whether or not the rows are done: the transfers in flight are
    aborted, and wanted again on the way back. Then a patient stop at each place, so that every run
    ends having loaded the same photos."""
    places = [min(rows - screen, rows // 10), min(rows - screen, rows * 6 // 10)]
    return [("impatient", 0.1, places[i % 2], 0.25) for i in range(rounds * 2)] \
        + [("settle", 0.1, place, 0.5) for place in places]


async def replay(port: int, steps: list[tuple[str, float, int, float]], args, viewer: Viewer | None = None) -> Viewer:
    """Replays `steps` as one viewer (the first call makes it); an impatient stop waits only its dwell."""
    if viewer is None:
        viewer = Viewer(port)
        await viewer.start()
        await asyncio.sleep(0.2)  # the snapshot
    for trace, scroll, first, dwell in steps:
        if scroll:
            await viewer.scroll(scroll)
        patient = trace != "impatient"
        await viewer.stop_at(first, first + args.screen - 1, args.stop_timeout if patient else dwell)
        if patient:
            await asyncio.sleep(dwell)
    return viewer


async def run_resume(honour_ranges: bool, files, args) -> dict:
    """The traces and the impatient one, strategy prefetch, on an origin that honours or ignores Range."""
    with RangeOrigin(files, args.latency_ms / 1000, args.resume_bandwidth, honour_ranges) as origin:
        with Server(["--strategy", "prefetch", "--source", origin.source]) as server:
            viewer = await replay(server.port, traces(len(files), args.screen, args.seed, args.stops), args)
            standard = server.stats()
            await replay(server.port, impatient(len(files), args.screen, args.stops), args, viewer)
            stats = server.stats()
            viewer.stream.close()
    return {"standard": standard, "all": stats, "requests": origin.requests, "ranged": origin.ranged,
            "partial": origin.partial, "sent": origin.bytes_sent}


def compare_resume(args) -> None:
    """Bytes downloaded with and without resume, the same traces against the same files."""
    files = sample_photos(args.rows)
    log(f"\n== resume: the traces above, then {args.stops} impatient round trips between two places; prefetch; "
        f"{len(files)} sample photos from an origin that answers Range as nginx does, or ignores it "
        f"({args.latency_ms} ms, {args.resume_bandwidth / 1e6:g} MB/s per transfer)")
    results = [("Range ignored", asyncio.run(run_resume(False, files, args))),
               ("Range honoured", asyncio.run(run_resume(True, files, args)))]
    def per_photo(stats: dict) -> str:
        finished = stats["downloads"]["finished"]
        return f"{stats['bytesDownloaded'] / finished / 1e3:.0f} KB" if finished else "n/a"

    rows = [[name, mb(r["standard"]["bytesDownloaded"]), r["standard"]["transfersAborted"], per_photo(r["standard"]),
             mb(r["all"]["bytesDownloaded"]), r["all"]["transfersAborted"], r["all"]["downloads"]["finished"],
             per_photo(r["all"]), r["requests"], r["ranged"], r["partial"], mb(r["sent"])] for name, r in results]
    log(table(["origin", "traces: downloaded", "aborted", "per photo", "+ impatient: downloaded", "aborted",
               "photos", "per photo", "requests", "with Range", "206", "origin sent"], rows))
    (_, without), (_, resumed) = results
    saved = without["all"]["bytesDownloaded"] - resumed["all"]["bytesDownloaded"]
    if without["all"]["bytesDownloaded"]:
        log(f"  resume saves {mb(saved)} of {mb(without['all']['bytesDownloaded'])} "
            f"({saved / without['all']['bytesDownloaded']:.1%}); photos loaded: "
            f"{without['all']['downloads']['finished']} without, {resumed['all']['downloads']['finished']} with")


LANE_NAMES = {"eager": "eager", "visible": "visible", "prefetch": "prefetch", "serial": "serial"}


async def run_lab(port: int, strategies: list[str], args) -> list[dict]:
    """One lab with a lane per strategy, driven through the traces; each lane's figures, the lab's own."""
    lanes = [{"strategy": s, "prefetch": args.prefetch} if s == "prefetch" else {"strategy": s} for s in strategies]
    status, body = await ahttp("POST", port, "/api/labs", {"lanes": lanes, "latencyMs": args.latency_ms,
                                                            "bandwidth": args.bandwidth, "photos": args.rows})
    if status != 201:
        raise RuntimeError(f"POST /api/labs -> {status} {body[:300]!r}")
    lab = json.loads(body)
    viewers = []
    for lane in lab["lanes"]:
        viewer = Viewer(port)
        await viewer.start(lane["viewer"])
        viewers.append(viewer)
    await asyncio.sleep(0.2)  # the snapshots
    steps = traces(args.rows, args.screen, args.seed, args.stops)
    began = time.monotonic()
    for trace, scroll, first, dwell in steps:
        if scroll:
            await asyncio.gather(*(viewer.scroll(0) for viewer in viewers))
            await asyncio.sleep(scroll)
        # The lab measures each lane's stop itself; the viewers only wait (bounded) to move on.
        await asyncio.gather(*(viewer.stop_at(first, first + args.screen - 1, args.stop_timeout) for viewer in viewers))
        await asyncio.sleep(dwell)
    elapsed = time.monotonic() - began
    status, body = await ahttp("GET", port, f"/api/labs/{lab['lab']}")
    report = json.loads(body)
    await ahttp("DELETE", port, f"/api/labs/{lab['lab']}")
    for viewer in viewers:
        viewer.stream.close()
    results = []
    for strategy, lane in zip(strategies, report["lanes"]):
        if len(lane["stops"]) != len(steps):
            raise RuntimeError(f"{strategy}: the lab timed {len(lane['stops'])} stops of {len(steps)}")
        times: dict[str, list[float]] = {}
        timeouts: dict[str, int] = {}
        for (trace, *_), stop in zip(steps, lane["stops"]):
            if stop.get("ms") is None or stop["ms"] / 1000 >= args.stop_timeout:
                timeouts[trace] = timeouts.get(trace, 0) + 1
            # A stop the lab never saw done is counted at the bound (censored).
            took = args.stop_timeout if stop.get("ms") is None else min(args.stop_timeout, stop["ms"] / 1000)
            times.setdefault(trace, []).append(took)
        results.append({"strategy": strategy, "times": times, "all": [t for v in times.values() for t in v],
                        "timeouts": timeouts, "lane": lane, "elapsed": elapsed})
    return results


async def run_labs(args) -> list[dict]:
    strategies = [s for s in args.strategies.split(",") if s]
    server_args = ["--photo-count", str(args.rows), "--sample-latency-ms", str(args.latency_ms),
                   "--sample-bandwidth", str(args.bandwidth), "--max-labs", str(max(1, len(strategies)))]
    with Server(server_args) as server:
        if args.side_by_side:
            return await run_lab(server.port, strategies, args)
        return [result for s in strategies for result in await run_lab(server.port, [s], args)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--screen", type=int, default=10, help="visible rows (800 px of 80 px rows)")
    parser.add_argument("--stops", type=int, default=10, help="stops in the reading and random traces")
    parser.add_argument("--latency-ms", type=int, default=150)
    parser.add_argument("--bandwidth", type=int, default=2_000_000)
    parser.add_argument("--stop-timeout", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--strategies", default="eager,visible,prefetch,serial")
    parser.add_argument("--prefetch", type=int, default=3, help="the prefetch lane's margin")
    parser.add_argument("--side-by-side", action="store_true",
                        help="all strategies as the lanes of one lab, as the page shows them (they share the machine)")
    parser.add_argument("--no-resume", action="store_true", help="skip the comparison with and without resume")
    parser.add_argument("--resume-bandwidth", type=int, default=500_000,
                        help="bytes/s per transfer in the resume comparison: slow enough that transfers outlast a move")
    args = parser.parse_args()

    log(f"== 1. scroll traces: {args.rows} rows, {args.screen} visible, sample origin {args.latency_ms} ms latency, "
        f"{args.bandwidth / 1e6:g} MB/s per transfer; stops bounded at {args.stop_timeout:g} s (a stop that "
        f"hits the bound counts as the bound)")
    results = asyncio.run(run_labs(args))
    rows = []
    for r in results:
        lane = r["lane"]
        downloaded = lane["bytesDownloaded"]
        waste = lane["bytesWasted"] / downloaded if downloaded else 0.0
        cpu_waste = lane["filterSecondsWasted"] / lane["filterSeconds"] if lane["filterSeconds"] else 0.0
        rows.append([r["strategy"], len(r["all"]), sum(r["timeouts"].values()), ms(percentile(r["all"], 50)),
                     ms(percentile(r["all"], 95)), mb(downloaded), mb(lane["bytesWasted"]), f"{waste:.1%}",
                     f"{lane['filterSecondsWasted']:.2f} s", f"{cpu_waste:.1%}", lane["transfersAborted"],
                     lane["operationsCancelled"], lane["downloads"], f"{r['elapsed']:.0f} s"])
    log(table(["strategy", "stops", "at bound", "ttv p50", "ttv p95", "downloaded", "wasted", "waste %",
               "wasted CPU", "CPU waste %", "aborted", "cancelled", "downloads", "trace time"], rows))
    log("\ntime to visible per trace (p50 / p95):")
    names = ["flick", "reading", "top", "random"]
    log(table(["strategy"] + names,
              [[r["strategy"]] + [f"{ms(percentile(r['times'].get(n, []), 50))} / {ms(percentile(r['times'].get(n, []), 95))}"
                                  for n in names] for r in results]))
    by = {r["strategy"]: r for r in results}
    log("\ntargets:")
    for name in ("visible", "prefetch"):
        if name in by:
            lane = by[name]["lane"]
            waste = lane["bytesWasted"] / lane["bytesDownloaded"] if lane["bytesDownloaded"] else 0.0
            log(f"  {name} wastes {waste:.1%} of the bytes it downloads (target <= 5%): "
                f"{'met' if waste <= 0.05 else 'MISSED'}")
    if "eager" in by and "prefetch" in by:
        eager, prefetch = percentile(by["eager"]["all"], 95), percentile(by["prefetch"]["all"], 95)
        censored = " (eager's p95 is at the bound, so the true ratio is smaller)" if sum(by["eager"]["timeouts"].values()) \
            * 20 > len(by["eager"]["all"]) else ""
        log(f"  prefetch p95 / eager p95 = {prefetch / eager:.3f} (target <= 0.2): "
            f"{'met' if prefetch <= eager / 5 else 'MISSED'}{censored}")
    if not args.no_resume:
        compare_resume(args)


if __name__ == "__main__":
    main()
