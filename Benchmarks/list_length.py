"""Benchmark: costs that grew with the list's length (issue 22), at 300, 10,000 and 100,000 rows.

Per length, a fresh server on `--source` pointed at a loopback origin (Tests/pysupport/
long_list_origin.py) that lists that many photos and holds every image response, so the work
started stays in flight and every report meets as much pending work as the server allows. Then:

- an attacker viewer reports every row visible (`first 0, last N-1`), then a few rows, `--rounds`
  times and for `--seconds` at least ("every row"); then asks for the eager strategy (it wants every
  row in order), then a few rows, again and again ("eager"); one `GET /?strategy=eager` is timed too;
- meanwhile a normal viewer reports a few rows every 100 ms and `/healthz` is asked every 50 ms:
  their p50 / p99 are the figures (a request still unanswered at `--timeout` counts as the timeout);
- then `--unread` viewers open event streams they never read (4 KiB receive buffer, reading
  paused) while the normal viewer goes on: the server's resident memory per unread stream, and the
  bytes of a snapshot.

`--binary` measures another build (for the before figures). Nothing is judged; figures are printed.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

import common
from common import ahttp, log, ms, new_viewer, open_events, percentile, rss_bytes, table

sys.path.insert(0, str(common.ROOT / "Tests" / "pysupport"))
from long_list_origin import LongListOrigin  # noqa: E402


async def timed(method: str, port: int, path: str, body: object | None, timeout: float) -> tuple[int, float]:
    """(status, seconds); status 0 and `timeout` when no answer came in time."""
    start = time.monotonic()
    try:
        status, _ = await ahttp(method, port, path, body, timeout=timeout)
    except (asyncio.TimeoutError, OSError):
        return 0, timeout
    return status, time.monotonic() - start


class Background:
    """The normal viewer's reports and the `/healthz` probe, running until `stop()`."""

    def __init__(self, port: int, viewer: str, rows: int, timeout: float):
        self.port, self.viewer, self.rows, self.timeout = port, viewer, rows, timeout
        self.reports: list[float] = []
        self.health: list[float] = []
        self.running = True
        self.tasks = [asyncio.create_task(self.scroll()), asyncio.create_task(self.probe())]

    def take(self) -> tuple[list[float], list[float]]:
        reports, health = self.reports, self.health
        self.reports, self.health = [], []
        return reports, health

    async def scroll(self) -> None:
        first = 0
        while self.running:
            first = (first + 7) % max(1, self.rows - 10)
            body = {"viewer": self.viewer, "scrolling": False, "first": first, "last": min(self.rows - 1, first + 9)}
            _, seconds = await timed("POST", self.port, "/api/viewport", body, self.timeout)
            self.reports.append(seconds)
            await asyncio.sleep(0.1)

    async def probe(self) -> None:
        while self.running:
            _, seconds = await timed("GET", self.port, "/healthz", None, self.timeout)
            self.health.append(seconds)
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        self.running = False
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def attack(port: int, viewer: str, rows: int, rounds: int, timeout: float, eager: bool, least: float) -> list[float]:
    """Reports of the attacker: every row (or the eager strategy), then a few rows, `rounds` times and
    for `least` seconds at least (so the other viewer and the probe are measured that long)."""
    seconds = []
    end = time.monotonic() + least
    round_ = 0
    while round_ < rounds or time.monotonic() < end:
        round_ += 1
        few = (round_ * 300 + 50) % max(1, rows - 10)
        wants_everything = ({"viewer": viewer, "scrolling": False, "first": 0, "last": 9, "strategy": "eager"} if eager
                            else {"viewer": viewer, "scrolling": False, "first": 0, "last": rows - 1})
        a_few = {"viewer": viewer, "scrolling": False, "first": few, "last": few + 5}
        if eager:
            a_few["strategy"] = "visible"
        for body in (wants_everything, a_few):
            _, took = await timed("POST", port, "/api/viewport", body, timeout)
            seconds.append(took)
            await asyncio.sleep(0.02)  # about 50 reports a second: an eager scroller, not a flood
    return seconds


async def measure(rows: int, args: argparse.Namespace) -> list[list[object]]:
    figures = []
    with LongListOrigin(rows, hold_from=0) as origin, common.Server(args=["--source", origin.source]) as server:
        port = server.port
        attacker, normal = await new_viewer(port), await new_viewer(port)
        snapshot_bytes = []
        streams = [await open_events(port, viewer, lambda e: snapshot_bytes.append(len(e.data)) if e.name == "snapshot" else None)
                   for viewer in (attacker, normal)]
        background = Background(port, normal, rows, args.timeout)
        await asyncio.sleep(1)
        background.take()
        for phase, eager in (("every row", False), ("eager", True)):
            cpu = common.cpu_seconds(server.pid)
            reports = await attack(port, attacker, rows, args.rounds, args.timeout, eager, args.seconds)
            page = (await timed("GET", port, "/?strategy=eager", None, args.timeout))[1] if eager else float("nan")
            normal_reports, health = background.take()
            figures.append([f"{rows:,}", phase, ms(percentile(reports, 50)), ms(percentile(reports, 99)),
                            ms(percentile(normal_reports, 99)), ms(percentile(health, 50)), ms(percentile(health, 99)),
                            ms(page), f"{common.cpu_seconds(server.pid) - cpu:.1f} s"])
            log(f"  {rows:,} rows, {phase}: " + " ".join(str(c) for c in figures[-1][2:]))
        before = rss_bytes(server.pid)
        unread = []
        try:
            for _ in range(args.unread):
                viewer = await new_viewer(port)
                unread.append(await open_events(port, viewer, lambda e: None, read=False, receive_buffer=4096))
            await asyncio.sleep(args.unread_seconds)
            per_stream = (rss_bytes(server.pid) - before) / max(1, args.unread)
        except (asyncio.TimeoutError, OSError):
            log(f"  {rows:,} rows: the server made no viewer within {args.timeout:.0f} s; no figure for unread streams")
            per_stream = float("nan")
        for stream in unread + streams:
            stream.close()
        await background.stop()
        for row in figures:
            row += [f"{per_stream / 1e3:.0f} KB", f"{(snapshot_bytes or [0])[0] / 1e3:.1f} KB"]
    return figures


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[300, 10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=5, help="attack rounds at least")
    parser.add_argument("--seconds", type=float, default=10, help="seconds each attack lasts at least")
    parser.add_argument("--timeout", type=float, default=60, help="seconds a request may take before it counts as that")
    parser.add_argument("--unread", type=int, default=50)
    parser.add_argument("--unread-seconds", type=float, default=5)
    parser.add_argument("--binary", help="the classic-photos binary to measure (default: the benchmark build)")
    args = parser.parse_args()
    if args.binary:
        common.BINARY = Path(args.binary)
    log(f"list length: {common.BINARY}, {args.rounds} rounds, requests bounded at {args.timeout:.0f} s")
    rows = []
    for count in args.rows:
        rows += await measure(count, args)
    log(table(["rows", "attacker", "its report p50", "p99", "other viewer's report p99", "/healthz p50", "p99",
               "GET /?strategy=eager", "server CPU", "RSS per unread stream", "snapshot"], rows))


if __name__ == "__main__":
    asyncio.run(main())
