"""Benchmark 2: many viewers at once, from a load client on the same machine.

Per count (100 and 1,000 by default), a fresh server (strategy visible, so work follows viewports
exactly): N viewers each create a viewer, hold an event stream and post viewports (a scroll, then a
stop at a random spot among rows already sepia, every few seconds, staggered); one driver viewer
moves down the list a row at a time so the pipeline changes state at a steady rate, and every change
reaches every viewer.

Delivery latency: `operation` events carry the server's pipeline clock; each arrival minus that time,
less the smallest such difference seen in the run (the clock offset, plus the fastest delivery), is the
delivery latency. Also the spread (last arrival minus first) per event. Memory: VmRSS of the server
before the viewers, after they connected, after the run; CPU from /proc/PID/stat. A viewer is counted
dropped if its stream ends or it is sent a second snapshot while it kept reading.

Then a viewer that stops reading (tiny receive buffer, reading paused) while events flow fast: the
server's VmRSS is sampled each second, and whether the server cut the stream off is checked.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import time

from common import (Server, cpu_seconds, log, ms, new_viewer, open_events, percentile, post_viewport,
                    rss_bytes, table)

WARM_ROWS = 60


class Fleet:
    """Every viewer's stream, counted cheaply: only `operation` events are parsed."""

    def __init__(self):
        self.arrivals: dict[tuple, list[float]] = {}  # (queue, index, outcome, time) -> arrival times
        self.offsets_min = float("inf")
        self.events = 0
        self.snapshots: dict[int, int] = {}
        self.streams = []
        self.dropped = 0
        self.recording = False

    def handler(self, number: int):
        def on_event(event) -> None:
            self.events += 1
            if event.name == "operation":
                if not self.recording:
                    return
                data = json.loads(event.data)
                key = (data["queue"], data["index"], data["outcome"], data["time"])
                self.arrivals.setdefault(key, []).append(event.arrived)
            elif event.name == "snapshot":
                self.snapshots[number] = self.snapshots.get(number, 0) + 1
        return on_event


async def wait_filtered(port: int, rows: range, timeout: float) -> None:
    from common import ahttp
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, body = await ahttp("GET", port, "/api/photos")
        photos = json.loads(body)["photos"]
        if all(photos[i]["state"] in ("filtered", "failed") for i in rows):
            return
        await asyncio.sleep(0.5)


async def run_count(count: int, args) -> dict:
    server_args = ["--strategy", "visible", "--photo-count", "1000", "--sample-latency-ms", str(args.latency_ms),
                   "--sample-bandwidth", str(args.bandwidth), "--max-viewers", str(max(5000, count * 2)),
                   # One load client is one address; the per-client limit would refuse it after 60.
                   "--viewers-per-minute", "1000000"]
    with Server(server_args) as server:
        port, pid = server.port, server.pid
        fleet = Fleet()
        # Warm the rows the crowd looks at, so their viewports cost viewport handling, not downloads.
        driver = await new_viewer(port)
        driver_stream = await open_events(port, driver, lambda e: None)
        for first in range(0, WARM_ROWS, 10):
            await post_viewport(port, driver, False, first, first + 9)
            await wait_filtered(port, range(first, first + 10), 60)
        await asyncio.sleep(1)
        rss_before, cpu_before = rss_bytes(pid), cpu_seconds(pid)

        limit = asyncio.Semaphore(64)
        ids: list[str] = []

        async def connect(number: int) -> None:
            async with limit:
                viewer = await new_viewer(port)
                stream = await open_events(port, viewer, fleet.handler(number))
                ids.append(viewer)
                fleet.streams.append(stream)
                first = random.randrange(0, WARM_ROWS - 9)
                await post_viewport(port, viewer, False, first, first + 9)

        began = time.monotonic()
        await asyncio.gather(*(connect(i) for i in range(count)))
        connect_seconds = time.monotonic() - began
        await asyncio.sleep(3)
        rss_connected = rss_bytes(pid)

        stop = time.monotonic() + args.seconds
        fleet.recording = True
        cpu_start, wall_start = cpu_seconds(pid), time.monotonic()

        async def crowd(viewer: str) -> None:
            await asyncio.sleep(random.uniform(0, args.viewport_every))
            while time.monotonic() < stop:
                await post_viewport(port, viewer, True)
                await asyncio.sleep(0.2)
                first = random.randrange(0, WARM_ROWS - 9)
                await post_viewport(port, viewer, False, first, first + 9)
                await asyncio.sleep(args.viewport_every)

        async def drive() -> None:
            row = WARM_ROWS + 40
            while time.monotonic() < stop and row < 1000:
                await post_viewport(port, driver, False, row, row)
                row += 1
                await asyncio.sleep(1 / args.changes)

        await asyncio.gather(drive(), *(crowd(v) for v in ids))
        await asyncio.sleep(2)  # the last events arrive
        fleet.recording = False
        cpu_used, wall = cpu_seconds(pid) - cpu_start, time.monotonic() - wall_start
        rss_after = rss_bytes(pid)
        dropped = sum(1 for s in fleet.streams if s.closed.done())
        resnapshot = sum(1 for n in fleet.snapshots.values() if n > 1)
        for stream in fleet.streams:
            stream.close()
        driver_stream.close()

    differences = [t - key[3] for key, arrivals in fleet.arrivals.items() for t in arrivals]
    offset = min(differences) if differences else 0.0
    latencies = [d - offset for d in differences]
    complete = sum(1 for a in fleet.arrivals.values() if len(a) == count)
    spreads = [max(a) - min(a) for a in fleet.arrivals.values() if len(a) > 1]
    return {"count": count, "latencies": latencies, "spreads": spreads, "events": len(fleet.arrivals),
            "complete": complete, "dropped": dropped, "resnapshot": resnapshot, "rss_before": rss_before,
            "rss_connected": rss_connected, "rss_after": rss_after, "cpu": cpu_used / wall,
            "connect_seconds": connect_seconds, "received": fleet.events}


async def stalled_reader(args, stall: bool) -> list[int]:
    """A viewer that stops reading while events flow fast: does the server's memory stay bounded?
    Run with and without the stalled viewer, same driving, a small memory budget so the image cache
    stops growing early."""
    server_args = ["--strategy", "prefetch", "--prefetch", "10", "--photo-count", "1000", "--sample-latency-ms", "5",
                   "--sample-bandwidth", "100000000", "--memory-budget-mb", "32"]
    with Server(server_args) as server:
        port, pid = server.port, server.pid
        stream = None
        if stall:
            stalled = await new_viewer(port)
            stream = await open_events(port, stalled, lambda e: None, read=False, receive_buffer=4096)
        reader = await new_viewer(port)
        received = []
        reader_stream = await open_events(port, reader, lambda e: received.append(1))
        samples = []
        row = 0
        for second in range(args.stall_seconds):
            for _ in range(4):
                await post_viewport(port, reader, True)
                await post_viewport(port, reader, False, row, row + 9)
                row = (row + 23) % 990
                await asyncio.sleep(0.25)
            samples.append(rss_bytes(pid))
        cut = None
        if stream:
            # Read what is left: if the server cut the stream off, it ends.
            stream.transport.resume_reading()
            try:
                await asyncio.wait_for(asyncio.shield(stream.closed), 5)
                cut = True
            except asyncio.TimeoutError:
                cut = False
            stream.close()
        reader_stream.close()
    half = samples[len(samples) // 2:]
    label = "with a stalled viewer" if stall else "control, no stalled viewer"
    log(f"  {label}: {len(received)} events to the reading viewer; VmRSS second half "
        f"{min(half) / 1e6:.1f}-{max(half) / 1e6:.1f} MB (growth {(half[-1] - half[0]) / 1e6:+.1f} MB), peak "
        f"{max(samples) / 1e6:.1f} MB" + ("" if cut is None else f"; stream cut off by the server: {'yes' if cut else 'no'}"))
    log("    VmRSS each second (MB): " + " ".join(f"{s / 1e6:.0f}" for s in samples))
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--counts", default="100,1000")
    parser.add_argument("--seconds", type=float, default=20, help="measured time per count")
    parser.add_argument("--changes", type=float, default=1.0, help="driver rows per second")
    parser.add_argument("--viewport-every", type=float, default=5.0)
    parser.add_argument("--latency-ms", type=int, default=150)
    parser.add_argument("--bandwidth", type=int, default=2_000_000)
    parser.add_argument("--stall-seconds", type=int, default=30)
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))  # the server inherits it
    random.seed(2)
    log(f"== 2. viewers at once: strategy visible, a driver moving {args.changes:g} row/s, every viewer posting a "
        f"viewport every {args.viewport_every:g} s, {args.seconds:g} s measured per count; open files limit "
        f"{resource.getrlimit(resource.RLIMIT_NOFILE)[0]}")
    results = [asyncio.run(run_count(int(c), args)) for c in args.counts.split(",")]
    rows = []
    for r in results:
        per_viewer = (r["rss_connected"] - r["rss_before"]) / r["count"]
        per_viewer_after = (r["rss_after"] - r["rss_before"]) / r["count"]
        rows.append([r["count"], f"{r['connect_seconds']:.1f} s", r["events"], f"{r['complete']}/{r['events']}",
                     ms(percentile(r["latencies"], 50)), ms(percentile(r["latencies"], 99)),
                     ms(percentile(r["spreads"], 99)), f"{r['rss_before'] / 1e6:.0f} MB",
                     f"{per_viewer / 1024:.0f} KB", f"{per_viewer_after / 1024:.0f} KB", f"{r['cpu']:.0%}",
                     r["dropped"], r["resnapshot"]])
    log(table(["viewers", "connect", "changes", "to all", "delivery p50", "p99", "spread p99", "RSS before",
               "RSS/viewer", "after run", "server CPU", "dropped", "re-snapshot"], rows))
    log("  (changes: operation events seen; to all: how many reached every viewer; RSS/viewer: (VmRSS with the "
        "viewers connected - before) / viewers, 'after run' the same at the end; CPU: server CPU time / wall "
        "time, 100% = one core)")
    big = results[-1]
    per_viewer = (big["rss_connected"] - big["rss_before"]) / big["count"]
    p99 = percentile(big["latencies"], 99)
    for r in results:
        if r["count"] == 1000:
            p99_1000 = percentile(r["latencies"], 99)
            log(f"target at 1,000 viewers: p99 delivery {ms(p99_1000)} (<= 50 ms): {'met' if p99_1000 <= 0.05 else 'MISSED'}")
    log(f"targets at {big['count']} viewers: p99 {ms(p99)}; "
        f"{per_viewer / 1024:.0f} KB/viewer (<= 20 KB): {'met' if per_viewer <= 20 * 1024 else 'MISSED'}; "
        f"dropped {big['dropped'] + big['resnapshot']} (0): {'met' if big['dropped'] + big['resnapshot'] == 0 else 'MISSED'}")
    log(f"\nstalled reader: {args.stall_seconds} s of fast events (5 ms, 100 MB/s origin, viewports every 250 ms), "
        f"memory budget 32 MB; reading paused, 4 KiB receive buffer")
    stalled = asyncio.run(stalled_reader(args, True))
    control = asyncio.run(stalled_reader(args, False))
    excess = max(stalled) - max(control)
    log(f"  peak VmRSS with the stalled viewer - without: {excess / 1e6:+.1f} MB")


if __name__ == "__main__":
    main()
