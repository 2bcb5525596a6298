"""Benchmarks 21 and 23 (issue 37): a thousand followers of one presenter.

Two fresh servers with the same list (strategy visible, a cold cache each): on the first the presenter is
alone; on the second, first N followers (1,000 by default, each from its own loopback address 127.1.x.y)
open the follow link (`GET /?follow=CODE`, the page) and hold their event streams. The followers live in
processes of their own (`--follower-processes`, as an audience is on machines of its own), so the presenter's
clock never waits behind their reading. On both the presenter
makes the same jumps to cold rows (a stop on 10 rows, seeded), each once its last jump's rows are done.

Printed: origin work (downloads started and finished, filtrations) alone and followed, which must be the
same (followers add no demand); the presenter's time to visible after each jump (its report sent -> its
stream says every row of the stop is filtered or failed) alone and followed, p50 and p95, and their ratio;
each follower's move (its `presentation` event naming the stop's first row) after the presenter's report
was sent, p50/p95/p99 over every follower and jump; the server's RSS per follower and its CPU.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import subprocess
import random
import re
import resource
import time

from common import HOST, EventWatcher, SSEProtocol, ahttp, Server, cpu_seconds, log, ms, new_viewer, percentile, post_viewport, rss_bytes, table

ROWS_PER_STOP = 10
# A presenter's wheel: what it shows, told this many times this far apart (a notch's `scrollend` each)
WHEEL_STEPS = 15
WHEEL_STEP_S = 0.06


def address(n: int) -> str:
    """The n-th follower's own loopback address."""
    return f"127.1.{n // 250}.{n % 250 + 1}"


async def page_from(port: int, source: str, path: str) -> tuple[int, str]:
    """GET `path` from `source` (an address of this machine), as a browser asks for a page."""
    reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nAccept: text/html\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        data = await reader.read()
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode("utf-8", "replace")


class Presenter:
    """The presenter's viewer and stream: when each row of a stop was last said filtered or failed."""

    def __init__(self):
        self.done: dict[int, float] = {}

    def on_event(self, event) -> None:
        if event.name == "photo":
            data = json.loads(event.data)
            if data.get("state") in ("filtered", "failed") and not data.get("partial"):
                self.done.setdefault(data["index"], event.arrived)


def follower_process(port: int, code: str, numbers: list[int], shared: bool, joined, done, results) -> None:
    """One process of followers (the audience's machines): joins `numbers` (page, then stream, each from
    its own address), says so on `joined`, holds the streams until `done`, then sends when each move
    (a `presentation` event naming a stop's first row) arrived. Apart from the presenter's process, so
    the presenter's clock never waits behind the followers' reading."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        moves: dict[int, list[float]] = {}
        cpu = [0.0]
        streams = []

        async def join(n: int) -> None:
            status, html = await page_from(port, address(n), f"/?follow={code}")
            if status != 200:
                raise RuntimeError(f"follower {n}: GET /?follow= -> {status}: {html[:200]}")
            follower = re.search(r'data-viewer="([^"]+)"', html).group(1)
            seen: set[int] = set()

            def moved(told: dict, arrived: float) -> None:
                # On a shared stream each event's data is `{"viewer", "id", "data": PAYLOAD}`. Each row's
                # first move only: a scroll's start is told at the rows it left (a move there again).
                first = (told["data"] if shared else told).get("first")
                if first is not None and first not in seen:
                    seen.add(first)
                    moves.setdefault(first, []).append(arrived)

            if not shared:
                protocol = EventWatcher(f"/events?viewer={follower}", port, "presentation", moved)
                await loop.create_connection(lambda: protocol, HOST, port, local_addr=(address(n), 0))
                streams.append(protocol)
                return
            # As the page does: the browser's one shared stream, then the viewer joins it
            named = loop.create_future()
            protocol = EventWatcher("/events/shared", port, "presentation", moved, named)
            await loop.create_connection(lambda: protocol, HOST, port, local_addr=(address(n), 0))
            stream = await asyncio.wait_for(named, 60)
            status, _ = await ahttp("POST", port, f"/api/streams/{stream}/viewers", {"viewer": follower}, source=address(n))
            if status != 204:
                raise RuntimeError(f"follower {n}: joining stream {stream} -> {status}")
            streams.append(protocol)

        for batch in range(0, len(numbers), 50):
            await asyncio.gather(*(join(n) for n in numbers[batch:batch + 50]))
        joined.put(len(streams))
        cpu[0] = time.process_time()
        while not done.is_set():
            await asyncio.sleep(0.05)
        for protocol in streams:
            protocol.close()
        results.put((moves, time.process_time() - cpu[0]))

    asyncio.run(main())


async def run(followers: int, stops: list[int], wheels: list[int], args) -> dict:
    server_args = ["--strategy", "visible", "--photo-count", str(args.photos), "--sample-latency-ms", str(args.latency_ms),
                   "--sample-bandwidth", str(args.bandwidth), "--max-viewers", str(max(5000, followers * 2))]
    with Server(server_args) as server:
        port, pid = server.port, server.pid
        loop = asyncio.get_running_loop()
        presenter = Presenter()
        viewer = await new_viewer(port)
        stream = SSEProtocol(f"/events?viewer={viewer}", port, presenter.on_event)
        await loop.create_connection(lambda: stream, HOST, port)
        status, body = await asyncio.wait_for(_post(port, "/api/presentations", {"viewer": viewer}), 30)
        code = json.loads(body)["code"]
        rss_before, cpu_before = rss_bytes(pid), cpu_seconds(pid)

        # The followers, in processes of their own: each its page, then its stream, from its own address
        context = multiprocessing.get_context("spawn")
        joined, results, done = context.Queue(), context.Queue(), context.Event()
        shares = [list(range(followers))[k::args.follower_processes] for k in range(args.follower_processes)] if followers else []
        processes = [context.Process(target=follower_process, args=(port, code, share, not args.own_streams, joined, done, results), daemon=True)
                     for share in shares if share]
        started = time.monotonic()
        for process in processes:
            process.start()
        held = 0
        for _ in processes:
            held += await loop.run_in_executor(None, joined.get, True, 300)
        if held != followers:
            raise RuntimeError(f"{held} of {followers} followers hold a stream")
        joined_s = time.monotonic() - started
        rss_followed = rss_bytes(pid)

        # The presenter's jumps, each once the one before is done (recorded by perf if asked, followed only)
        recording = None
        if args.perf and followers:
            recording = subprocess.Popen(["perf", "record", "-g", "-p", str(pid), "-o", args.perf],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            await asyncio.sleep(1)
        load_before = os.getloadavg()[0]
        cpu_jumps = cpu_seconds(pid)
        visible, sent_at = [], {}

        async def stop_at(first: int) -> float:
            """The presenter stops on rows first...; the time from its report to every row final."""
            rows = range(first, first + ROWS_PER_STOP)
            sent_at[first] = time.monotonic()
            await post_viewport(port, viewer, False, first, first + ROWS_PER_STOP - 1)
            deadline = time.monotonic() + 120
            while not all(r in presenter.done for r in rows) and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            return max(presenter.done.get(r, deadline) for r in rows) - sent_at[first]

        for first in stops:
            visible.append(await stop_at(first))
        cpu_jumps = cpu_seconds(pid) - cpu_jumps

        # The presenter's wheels: a scroll told, what it shows every WHEEL_STEP_S on the way (`showing`, no
        # rows: nothing starts), then its stop on cold rows
        cpu_wheels = cpu_seconds(pid)
        wheeled, wheel_moves = [], set()
        for stop in wheels:
            await post_viewport(port, viewer, True)
            for step in range(WHEEL_STEPS):
                first = stop - 2 * (WHEEL_STEPS - step)
                sent_at[first] = time.monotonic()
                wheel_moves.add(first)
                await ahttp("POST", port, "/api/viewport", {"viewer": viewer, "scrolling": True,
                                                            "showing": {"first": first, "last": first + ROWS_PER_STOP - 1}})
                await asyncio.sleep(WHEEL_STEP_S)
            wheeled.append(await stop_at(stop))
        cpu_wheels = cpu_seconds(pid) - cpu_wheels
        await asyncio.sleep(0.5)  # the last moves on their way (measured, not awaited per follower)
        if recording:
            recording.send_signal(2)
            recording.wait(60)
        stats = server.stats()
        done.set()
        moves: dict[int, list[float]] = {}
        followers_cpu = 0.0
        for _ in processes:
            process_moves, process_cpu = await loop.run_in_executor(None, results.get, True, 120)
            followers_cpu += process_cpu
            for first, arrivals in process_moves.items():
                moves.setdefault(first, []).extend(arrivals)
        for process in processes:
            process.join(30)
        # CLOCK_MONOTONIC is the machine's: the followers' arrivals and the presenter's sends compare
        delays = [arrived - sent_at[first] for first, arrivals in moves.items()
                  if first in sent_at and first not in wheel_moves for arrived in arrivals]
        wheel_delays = [arrived - sent_at[first] for first, arrivals in moves.items() if first in wheel_moves for arrived in arrivals]
        # Per move: its first follower's arrival (the server's own way plus one read) and the spread to the
        # last (the fan-out over a thousand sockets and the followers' own reading)
        firsts = [min(arrivals) - sent_at[first] for first, arrivals in moves.items() if first in sent_at and arrivals]
        spreads = [max(arrivals) - min(arrivals) for first, arrivals in moves.items() if first in sent_at and arrivals]
        received = sum(len(moves.get(first, [])) for first in [*stops, *wheels])
        stream.close()
        return {
            "followers": followers, "joined_s": joined_s, "visible": visible, "delays": delays,
            "followers_cpu_s": followers_cpu, "firsts": firsts, "spreads": spreads, "received": received, "expected": followers * (len(stops) + len(wheels)),
            "wheeled": wheeled, "wheel_delays": wheel_delays, "cpu_wheels_s": cpu_wheels,
            "downloads": stats["downloads"], "filtrations": stats["filtrations"],
            "rss_per_follower": (rss_followed - rss_before) / followers if followers else 0,
            "cpu_s": cpu_seconds(pid) - cpu_before, "cpu_jumps_s": cpu_jumps,
            "load": (load_before, os.getloadavg()[0]),
        }


async def _post(port: int, path: str, body: object) -> tuple[int, bytes]:
    from common import ahttp
    return await ahttp("POST", port, path, body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=1000)
    parser.add_argument("--jumps", type=int, default=8)
    parser.add_argument("--own-streams", action="store_true",
                        help="each follower its own `GET /events?viewer=` instead of a shared stream joined, as the page does")
    parser.add_argument("--wheels", type=int, default=4, help="presenter's wheels, each ending on cold rows")
    parser.add_argument("--photos", type=int, default=1000)
    parser.add_argument("--latency-ms", type=int, default=150)
    parser.add_argument("--bandwidth", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--perf", metavar="FILE", help="perf record -g the followed server during its jumps into FILE")
    parser.add_argument("--follower-processes", type=int, default=2,
                        help="processes the followers are spread over, apart from the presenter's")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    rng = random.Random(args.seed)
    # Apart enough that no stop's rows lie on another's way (a wheel passes 2 x WHEEL_STEPS rows before it)
    places = rng.sample(range(2 * WHEEL_STEPS + 10, args.photos - ROWS_PER_STOP, 2 * WHEEL_STEPS + 2 * ROWS_PER_STOP),
                        args.jumps + args.wheels)
    stops, wheels = places[:args.jumps], places[args.jumps:]
    log(f"followers benchmark: {args.followers} followers, {args.jumps} jumps of {ROWS_PER_STOP} rows, "
        f"{args.latency_ms} ms + {args.bandwidth} B/s origin")
    alone = asyncio.run(run(0, stops, wheels, args))
    followed = asyncio.run(run(args.followers, stops, wheels, args))

    def work(result):
        d, f = result["downloads"], result["filtrations"]
        return f"{d['started']} started / {d['finished']} finished; filtrations {f['started']}"

    p50 = lambda values: percentile(values, 50)
    p95 = lambda values: percentile(values, 95)
    print(table(["", "alone", f"{args.followers} followers", "ratio"], [
        ["origin work", work(alone), work(followed), "same" if alone["downloads"] == followed["downloads"] else "DIFFERENT"],
        ["presenter time to visible p50", ms(p50(alone["visible"])), ms(p50(followed["visible"])),
         f"{p50(followed['visible']) / p50(alone['visible']):.2f}x"],
        ["presenter time to visible p95", ms(p95(alone["visible"])), ms(p95(followed["visible"])),
         f"{p95(followed['visible']) / p95(alone['visible']):.2f}x"],
    ] + ([["presenter's wheel: stop -> visible p50", ms(p50(alone["wheeled"])), ms(p50(followed["wheeled"])),
           f"{p50(followed['wheeled']) / p50(alone['wheeled']):.2f}x"]] if wheels else [])))
    if followed["wheel_delays"]:
        wd = followed["wheel_delays"]
        print(f"follower moves on the presenter's wheels (`showing` every {WHEEL_STEP_S * 1000:.0f} ms): p50 {ms(p50(wd))}, "
              f"p95 {ms(p95(wd))}, p99 {ms(percentile(wd, 99))}; server CPU during the wheels {followed['cpu_wheels_s']:.1f} s "
              f"(alone {alone['cpu_wheels_s']:.1f} s)")
    delays = followed["delays"]
    print(f"follower moves received: {followed['received']} of {followed['expected']}; after the presenter's report was sent: "
          f"p50 {ms(p50(delays))}, p95 {ms(p95(delays))}, p99 {ms(percentile(delays, 99))}")
    if followed["firsts"]:
        print(f"each move's first follower after the report was sent: p50 {ms(p50(followed['firsts']))}, max "
              f"{ms(max(followed['firsts']))}; its first to last follower: p50 {ms(p50(followed['spreads']))}, max "
              f"{ms(max(followed['spreads']))}")
    print(f"{args.followers} followers joined (page + stream each) in {followed['joined_s']:.1f} s; server RSS "
          f"{followed['rss_per_follower'] / 1024:.1f} KB per follower; server CPU during the run {followed['cpu_s']:.1f} s "
          f"(alone {alone['cpu_s']:.1f} s); during the jumps {followed['cpu_jumps_s']:.1f} s (alone {alone['cpu_jumps_s']:.1f} s); the followers' own processes {followed['followers_cpu_s']:.1f} s")
    print(f"load average (1 min) at the jumps' start -> end: alone {alone['load'][0]:.1f} -> {alone['load'][1]:.1f}, "
          f"followed {followed['load'][0]:.1f} -> {followed['load'][1]:.1f}")


if __name__ == "__main__":
    main()
