"""Benchmark 9: several instances on one PostgreSQL against one instance, under the same load.

Runs, each with fresh servers (release build), on one loopback PostgreSQL made for the run (initdb
in a fresh folder) and one origin that counts GETs per photo (Tests/cluster/support.py's, serving
the sample photos from memory, so transfers cost the origin nothing):
  1. one instance, no database (the in-process default),
  2. one instance with --database-url,
  3. three instances with --database-url, the viewers spread evenly over them.
N viewers (3,000 by default) each hold an event stream and post a viewport every few seconds at a
random spot among rows already done; one driver viewer on the first instance moves down the list a
row a second, so that work runs on one instance and its state changes reach every viewer.

Event delivery: for each change of a driven photo (its index, state, progress) the arrival at each
viewer minus the first arrival at any viewer (on any instance): the spread that carrying events
between instances adds to (or saves from) one instance's fan-out. CPU (time / wall, 100% = one
core) and VmRSS per instance; origin GETs per photo.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from common import (BINARY, ROOT, Server, cpu_seconds, log, ms, new_viewer, open_events, percentile, post_viewport,
                    rss_bytes, table, cache_dir)

sys.path.insert(0, str(ROOT / "Tests" / "cluster"))
from support import Origin, Postgres  # noqa: E402
from viewers import wait_filtered  # noqa: E402

WARM_ROWS = 60
DRIVEN_FROM = WARM_ROWS + 20


class Arrivals:
    def __init__(self):
        self.arrivals: dict[tuple, list[float]] = {}
        self.recording = False

    def handler(self):
        def on_event(event) -> None:
            if not self.recording or event.name != "photo":
                return
            data = json.loads(event.data)
            # The driver's rows as their work goes on (a viewer also hears `new` for rows entering its
            # window: not a change fanned out to everyone).
            if data["index"] < DRIVEN_FROM or data["state"] == "new":
                return
            key = (data["index"], data["state"], data.get("progress"), data.get("preview"))
            self.arrivals.setdefault(key, []).append(event.arrived)
        return on_event


async def drive(servers: list[Server], count: int, args) -> dict:
    ports = [s.port for s in servers]
    arrivals = Arrivals()
    driver = await new_viewer(ports[0])
    streams = [await open_events(ports[0], driver, lambda e: None)]
    for first in range(0, WARM_ROWS, 10):
        await post_viewport(ports[0], driver, False, first, first + 9)
        for port in ports:
            await wait_filtered(port, range(first, first + 10), 120)
    limit = asyncio.Semaphore(64)
    viewers: list[tuple[int, str]] = []

    async def connect(number: int) -> None:
        port = ports[number % len(ports)]
        async with limit:
            viewer = await new_viewer(port)
            streams.append(await open_events(port, viewer, arrivals.handler()))
            viewers.append((port, viewer))
            first = random.randrange(0, WARM_ROWS - 9)
            await post_viewport(port, viewer, False, first, first + 9)

    await asyncio.gather(*(connect(i) for i in range(count)))
    await asyncio.sleep(3)
    before = [(cpu_seconds(s.pid), rss_bytes(s.pid)) for s in servers]
    began = time.monotonic()
    stop = began + args.seconds
    arrivals.recording = True

    async def crowd(port: int, viewer: str) -> None:
        await asyncio.sleep(random.uniform(0, args.viewport_every))
        while time.monotonic() < stop:
            first = random.randrange(0, WARM_ROWS - 9)
            await post_viewport(port, viewer, False, first, first + 9)
            await asyncio.sleep(args.viewport_every)

    async def move() -> None:
        row = DRIVEN_FROM
        while time.monotonic() < stop:
            await post_viewport(ports[0], driver, False, row, row)
            row += 1
            await asyncio.sleep(1)

    await asyncio.gather(move(), *(crowd(port, viewer) for port, viewer in viewers))
    await asyncio.sleep(2)
    arrivals.recording = False
    wall = time.monotonic() - began
    after = [(cpu_seconds(s.pid), rss_bytes(s.pid)) for s in servers]
    for stream in streams:
        stream.close()
    spreads = [t - min(times) for times in arrivals.arrivals.values() for t in times]
    if args.show_slow:
        for key, times in sorted(arrivals.arrivals.items(), key=lambda item: min(item[1])):
            log(f"  {key}: {len(times)} arrivals over {ms(max(times) - min(times))}")
    complete = sum(1 for times in arrivals.arrivals.values() if len(times) == count)
    return {"spreads": spreads, "changes": len(arrivals.arrivals), "complete": complete,
            "cpu": [(a[0] - b[0]) / wall for a, b in zip(after, before)], "rss": [a[1] for a in after]}


def run(label: str, instances: int, database: Postgres | None, origin: Origin, count: int, args) -> list:
    servers = []
    try:
        for number in range(instances):
            extra = ["--database-url", database.url, "--instance-name", f"n{number}"] if database else []
            server = Server(["--strategy", "visible", "--source", origin.source, "--max-viewers", str(count * 2),
                             "--viewers-per-minute", "1000000", *extra])
            servers.append(server.__enter__())
        result = asyncio.run(drive(servers, count, args))
    finally:
        for server in servers:
            server.__exit__(None, None, None)
    gets = list(origin.counts.values())
    return [label, count, result["changes"], f"{result['complete']}/{result['changes']}",
            ms(percentile(result["spreads"], 50)), ms(percentile(result["spreads"], 99)),
            " ".join(f"{c:.0%}" for c in result["cpu"]), " ".join(f"{r / 1e6:.0f}" for r in result["rss"]),
            f"{max(gets)} ({sum(gets)}/{len(gets)})"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--viewers", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--viewport-every", type=float, default=5.0)
    parser.add_argument("--photos", type=int, default=300)
    parser.add_argument("--show-slow", action="store_true", help="list every change with its arrivals")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    random.seed(9)
    samples = next(cache_dir().glob("sample-photos-*"), None)
    if samples is None:
        sys.exit("no sample photos yet: run another benchmark first (they generate them), or scripts/bench.sh")
    photos = {p.stem.replace(" ", "-"): p.read_bytes() for p in sorted(samples.glob("*.jpg"))[: args.photos]}
    log(f"== 9. instances on one PostgreSQL: {args.viewers} viewers, a driver moving 1 row/s, viewports every "
        f"{args.viewport_every:g} s, {args.seconds:g} s measured; {len(photos)} photos; {BINARY}")
    rows = []
    for label, instances, with_database in [("1 instance, in process", 1, False), ("1 instance + PostgreSQL", 1, True),
                                            ("3 instances + PostgreSQL", 3, True)]:
        with tempfile.TemporaryDirectory(prefix="classic-photos-bench-pg-") as folder:
            database = Postgres(Path(folder)) if with_database else None
            origin = Origin(photos)
            try:
                rows.append(run(label, instances, database, origin, args.viewers, args))
            finally:
                origin.close()
                if database:
                    database.stop()
            log(table(["run", "viewers", "changes", "to all", "spread p50", "p99", "CPU per instance",
                       "VmRSS MB per instance", "GETs/photo max (total/photos)"], rows[-1:]))
    log(table(["run", "viewers", "changes", "to all", "spread p50", "p99", "CPU per instance",
               "VmRSS MB per instance", "GETs/photo max (total/photos)"], rows))


if __name__ == "__main__":
    main()
