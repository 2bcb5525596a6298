"""The server's own links after a stop (issue 38), on its own clock, without a browser.

A viewer made by `GET /` holds its event stream (`--shared`: the shared one, joined as the page's hub
joins it) in this process, and stops on `--stops` seeded places of 9 rows (a laptop's screen), one
every 1.5 s, with the sample origin of first_pixels.py (150 ms, 2 MB/s per transfer) behind the list.
Each operation event carries the server's time, so the links below are the server's, not a page's:

  delivery          each event's arrival here beyond the quickest one's (the server's clock placed on
                    this process's by the quickest delivery): what the stream itself adds
  last byte -> filter started   the download's end to its filtration starting (a slot's wait)
  filter run        filtration started -> finished (decode, sepia, encode, on a loaded core or not)
  filter CPU        the filtration's own CPU time (its event's `cpuSeconds`)
  last byte -> filtered         the sum: what the server adds to a photo after its last byte
  download past the floor       the download's start to its last byte, less the origin's latency and
                                the photo's bytes at its bandwidth: what the transfer adds (the
                                connection, the origin's own pace, the reads of a busy transfer thread)

Set beside first_pixels.py's "page's own delays" (the same events' arrival at a page), it says which
part of a jump's time past the floor is the server's. Printed, not judged.

  python3 Benchmarks/server_chain.py [--stops 16] [--shared] [--binary PATH]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
from pathlib import Path

import common
from common import HOST, http, log, percentile, table

LATENCY_MS, BANDWIDTH = 150, 2_000_000
ROWS_ON_SCREEN = 9


async def play(port: int, count: int, stops: int, shared: bool) -> list[tuple[float, dict]]:
    """(arrival, payload) of every operation event of one viewer stopping on `stops` seeded places."""
    loop = asyncio.get_running_loop()
    status, page = await loop.run_in_executor(None, http, "GET", port, "/")
    viewer = re.search(rb'data-viewer="([^"]+)"', page).group(1).decode()
    arrivals: list[tuple[float, dict]] = []
    stream_id = loop.create_future()

    def on_event(event: common.Event) -> None:
        if event.name == "stream" and not stream_id.done():
            stream_id.set_result(json.loads(event.data)["stream"])
        if event.name != "operation":
            return
        data = json.loads(event.data)
        data = data.get("data", data) if shared else data
        if "queue" in data:
            arrivals.append((event.arrived, data))

    path = "/events/shared" if shared else f"/events?viewer={viewer}"
    transport, _ = await loop.create_connection(lambda: common.SSEProtocol(path, port, on_event), HOST, port)
    try:
        if shared:
            stream = await asyncio.wait_for(stream_id, 10)
            status, _ = await loop.run_in_executor(None, http, "POST", port, f"/api/streams/{stream}/viewers", {"viewer": viewer})
            assert status == 204, f"join: {status}"
        rng = random.Random(38)
        for _ in range(stops):
            first = rng.randrange(ROWS_ON_SCREEN, count - ROWS_ON_SCREEN)
            report = {"viewer": viewer, "scrolling": False, "first": first, "last": first + ROWS_ON_SCREEN - 1}
            await loop.run_in_executor(None, http, "POST", port, "/api/viewport", report)
            await asyncio.sleep(1.5)
    finally:
        transport.close()
    return arrivals


def figures(arrivals: list[tuple[float, dict]], sizes: dict[int, int]) -> list[list[object]]:
    """The table's rows: each link's p50 / p90 / max in ms."""
    offsets = [arrived - data["time"] for arrived, data in arrivals]
    least = min(offsets)
    delivery = [1000 * (offset - least) for offset in offsets]
    times: dict[tuple[str, str], dict[int, float]] = {}
    cpu: list[float] = []
    for _, data in arrivals:
        times.setdefault((data["queue"], data["outcome"]), {})[data["index"]] = data["time"]
        if data["queue"] == "filtration" and data["outcome"] == "finished" and data.get("cpuSeconds"):
            cpu.append(1000 * data["cpuSeconds"])

    def link(a: tuple[str, str], b: tuple[str, str]) -> list[float]:
        start, end = times.get(a, {}), times.get(b, {})
        return [1000 * (end[i] - start[i]) for i in end if i in start]

    last_byte, started, finished = ("download", "finished"), ("filtration", "started"), ("filtration", "finished")
    downloads = times.get(("download", "started"), {})
    transfer = [1000 * (times[last_byte][i] - downloads[i]) - LATENCY_MS - sizes[i] / BANDWIDTH * 1000
                for i in times.get(last_byte, {}) if i in downloads and i in sizes and i in times.get(started, {})]
    rows = [("download past the floor", transfer), ("delivery", delivery), ("last byte -> filter started", link(last_byte, started)),
            ("filter run", link(started, finished)), ("filter CPU", cpu),
            ("last byte -> filtered", link(last_byte, finished))]
    return [[name, len(values), f"{percentile(values, 50):.1f}", f"{percentile(values, 90):.1f}", f"{max(values):.1f}"]
            for name, values in rows if values]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stops", type=int, default=16, help="stops to make (default 16)")
    parser.add_argument("--shared", action="store_true", help="hold the shared stream, as a browser's page does")
    parser.add_argument("--binary", type=Path, help="the server (default: the release build of scripts/bench.sh)")
    args = parser.parse_args()
    if args.binary:
        common.BINARY = args.binary.resolve()
    log(f"The server's own links after a stop, {args.stops} stops of {ROWS_ON_SCREEN} rows, "
        f"{'shared' if args.shared else 'own'} stream; load {os.getloadavg()[0]:.1f} at the start")
    with common.behind_sample_origin(LATENCY_MS, BANDWIDTH) as (server, photos, origin_host):
        samples = next(Path(origin_host.cache).glob("sample-photos-*"))
        files = {p["index"]: samples / p["url"].rsplit("/", 1)[1] for p in photos}
        sizes = {i: f.stat().st_size for i, f in files.items() if f.exists()}
        arrivals = asyncio.run(play(server.port, len(photos), args.stops, args.shared))
    log(table(["link", "n", "p50 ms", "p90 ms", "max ms"], figures(arrivals, sizes)))
    log(f"(load {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
