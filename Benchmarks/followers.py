"""Benchmark 18 (issue 37): a thousand followers of one presenter.

Two fresh servers with the same list (strategy visible, a cold cache each): on the first the presenter is
alone; on the second, first N followers (1,000 by default, each from its own loopback address 127.1.x.y)
open the follow link (`GET /?follow=CODE`, the page) and hold their event streams. On both the presenter
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
import random
import re
import resource
import time

from common import HOST, SSEProtocol, Server, cpu_seconds, log, ms, new_viewer, percentile, post_viewport, rss_bytes, table

ROWS_PER_STOP = 10


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


async def run(followers: int, stops: list[int], args) -> dict:
    server_args = ["--strategy", "visible", "--photo-count", str(args.photos), "--sample-latency-ms", str(args.latency_ms),
                   "--sample-bandwidth", str(args.bandwidth), "--max-viewers", str(max(5000, followers * 2))]
    with Server(server_args) as server:
        port, pid, loop = server.port, server.pid, asyncio.get_running_loop()
        presenter = Presenter()
        viewer = await new_viewer(port)
        stream = SSEProtocol(f"/events?viewer={viewer}", port, presenter.on_event)
        await loop.create_connection(lambda: stream, HOST, port)
        status, body = await asyncio.wait_for(_post(port, "/api/presentations", {"viewer": viewer}), 30)
        code = json.loads(body)["code"]
        rss_before, cpu_before = rss_bytes(pid), cpu_seconds(pid)

        # The followers: each its page, then its stream, from its own address
        moves: dict[int, list[float]] = {}
        streams = []

        def follower_events(event) -> None:
            if event.name == "presentation":
                data = json.loads(event.data)
                if data.get("first") is not None:
                    moves.setdefault(data["first"], []).append(event.arrived)

        async def join(n: int) -> None:
            status, html = await page_from(port, address(n), f"/?follow={code}")
            if status != 200:
                raise RuntimeError(f"follower {n}: GET /?follow= -> {status}: {html[:200]}")
            follower = re.search(r'data-viewer="([^"]+)"', html).group(1)
            protocol = SSEProtocol(f"/events?viewer={follower}", port, follower_events)
            await loop.create_connection(lambda: protocol, HOST, port, local_addr=(address(n), 0))
            streams.append(protocol)

        started = time.monotonic()
        for batch in range(0, followers, 50):
            await asyncio.gather(*(join(n) for n in range(batch, min(followers, batch + 50))))
        joined_s = time.monotonic() - started
        rss_followed = rss_bytes(pid)

        # The presenter's jumps, each once the one before is done
        visible, sent_at = [], {}
        for first in stops:
            rows = range(first, first + ROWS_PER_STOP)
            sent_at[first] = time.monotonic()
            await post_viewport(port, viewer, False, first, first + ROWS_PER_STOP - 1)
            deadline = time.monotonic() + 120
            while not all(r in presenter.done for r in rows) and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            visible.append(max(presenter.done.get(r, deadline) for r in rows) - sent_at[first])
        await asyncio.sleep(0.5)  # the last moves on their way (measured, not awaited per follower)
        stats = server.stats()
        delays = [arrived - sent_at[first] for first, arrivals in moves.items() if first in sent_at for arrived in arrivals]
        received = sum(len(moves.get(first, [])) for first in stops)
        for protocol in streams:
            protocol.close()
        stream.close()
        return {
            "followers": followers, "joined_s": joined_s, "visible": visible, "delays": delays,
            "received": received, "expected": followers * len(stops),
            "downloads": stats["downloads"], "filtrations": stats["filtrations"],
            "rss_per_follower": (rss_followed - rss_before) / followers if followers else 0,
            "cpu_s": cpu_seconds(pid) - cpu_before,
        }


async def _post(port: int, path: str, body: object) -> tuple[int, bytes]:
    from common import ahttp
    return await ahttp("POST", port, path, body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=1000)
    parser.add_argument("--jumps", type=int, default=8)
    parser.add_argument("--photos", type=int, default=1000)
    parser.add_argument("--latency-ms", type=int, default=150)
    parser.add_argument("--bandwidth", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=37)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    rng = random.Random(args.seed)
    stops = sorted(rng.sample(range(20, args.photos - ROWS_PER_STOP, ROWS_PER_STOP * 3), args.jumps))
    rng.shuffle(stops)
    log(f"followers benchmark: {args.followers} followers, {args.jumps} jumps of {ROWS_PER_STOP} rows, "
        f"{args.latency_ms} ms + {args.bandwidth} B/s origin")
    alone = asyncio.run(run(0, stops, args))
    followed = asyncio.run(run(args.followers, stops, args))

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
    ]))
    delays = followed["delays"]
    print(f"follower moves received: {followed['received']} of {followed['expected']}; after the presenter's report was sent: "
          f"p50 {ms(p50(delays))}, p95 {ms(p95(delays))}, p99 {ms(percentile(delays, 99))}")
    print(f"{args.followers} followers joined (page + stream each) in {followed['joined_s']:.1f} s; server RSS "
          f"{followed['rss_per_follower'] / 1024:.1f} KB per follower; server CPU during the run {followed['cpu_s']:.1f} s "
          f"(alone {alone['cpu_s']:.1f} s)")


if __name__ == "__main__":
    main()
