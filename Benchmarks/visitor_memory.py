"""Where a crowd visitor's resident memory goes (issue 36: <= 10 KB per visitor for page, viewer, stream).

N visitors (`--visitors`, 1,000 by default), each from its own loopback address as in crowd.py, come in
steps, all N through one step before the next; the server's VmRSS is read after each (settled for
`--settle` s), and the step's growth is printed per visitor:

  connection   a keep-alive connection that asked `GET /healthz` (and stays open)
  stream       `GET /events/shared` on a second connection, held (its `stream` event read)
  viewer       `GET /` on the first (the page makes the visitor's viewer), at once joined to its stream
               (its snapshot read): a viewer must open its stream within 10 s
  thumbnails   its first screen's nine thumbnails on the first connection
  traffic      another viewer has rows 100-299 made meanwhile: every visitor is sent their operations
               (about 800 timeline events) and the totals, and keeps its replay history of them

  python3 Benchmarks/visitor_memory.py [--visitors 1000] [--settle 2] [--no-traffic]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import time

from common import HOST, SSEProtocol, Server, log, rss_bytes, table
from crowd import PHOTOS, ROWS_ON_SCREEN, TOP_ROWS, Connection, address, warm


async def steps(port: int, pid: int, visitors: int, settle: float, traffic: bool) -> list[tuple[str, int]]:
    """Takes every visitor through each step in turn; the server's VmRSS after each."""
    loop = asyncio.get_running_loop()
    connections = [Connection(port, address(n), False) for n in range(visitors)]
    viewers: list[str] = [""] * visitors
    streams: list[tuple[SSEProtocol, asyncio.Future, asyncio.Future]] = []

    async def connection(n: int) -> None:
        assert (await connections[n].request("GET", "/healthz"))[0] == 200

    async def page(n: int) -> None:
        status, html = await connections[n].request("GET", "/")
        assert status == 200, status
        viewers[n] = re.search(rb'data-viewer="([^"]+)"', html).group(1).decode()

    async def stream(n: int) -> None:
        named, snapshot = loop.create_future(), loop.create_future()

        def heard(event) -> None:
            if event.name == "stream" and not named.done():
                named.set_result(json.loads(event.data)["stream"])
            elif event.name == "snapshot" and not snapshot.done():
                snapshot.set_result(True)

        protocol = SSEProtocol("/events/shared", port, heard)
        await loop.create_connection(lambda: protocol, HOST, port, local_addr=(address(n), 0))
        await asyncio.wait_for(named, 60)
        streams.append((protocol, named, snapshot))

    async def viewer(n: int) -> None:
        await page(n)
        protocol, named, snapshot = streams[n]
        status, _ = await connections[n].request("POST", f"/api/streams/{named.result()}/viewers", {"viewer": viewers[n]})
        assert status == 204, status
        await asyncio.wait_for(snapshot, 60)

    async def thumbnails(n: int) -> None:
        for index in range(ROWS_ON_SCREEN):
            await connections[n].request("GET", f"/photos/{index}/thumbnail")

    figures = [("before", rss_bytes(pid))]
    for name, step in (("connection", connection), ("stream", stream), ("viewer", viewer), ("thumbnails", thumbnails)):
        if name == "stream":
            for n in range(visitors):  # in order: `streams[n]` is visitor n's
                await stream(n)
        else:
            for first in range(0, visitors, 50):
                await asyncio.gather(*(step(n) for n in range(first, min(visitors, first + 50))))
        await asyncio.sleep(settle)
        figures.append((name, rss_bytes(pid)))
    if traffic:
        await asyncio.to_thread(warm, port, False, range(TOP_ROWS, PHOTOS))
        await asyncio.sleep(settle)
        figures.append(("traffic", rss_bytes(pid)))
    for protocol, _, _ in streams:
        protocol.close()
    for each in connections:
        each.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--visitors", type=int, default=1000)
    parser.add_argument("--settle", type=float, default=2)
    parser.add_argument("--no-traffic", action="store_true", help="leave out the traffic step (it takes minutes)")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    load = os.getloadavg()[0]
    with Server(["--photo-count", str(PHOTOS), "--sample-latency-ms", "0"]) as server:
        warm(server.port, False)
        began = time.monotonic()
        figures = asyncio.run(steps(server.port, server.pid, args.visitors, args.settle, not args.no_traffic))
    rows = [[name, f"{(rss - figures[k][1]) / args.visitors / 1024:.1f} KB", f"{rss / 2**20:.1f} MB"]
            for k, (name, rss) in enumerate(figures[1:])]
    total = (figures[-1][1] - figures[0][1]) / args.visitors / 1024
    rows.append(["all", f"{total:.1f} KB", ""])
    log(f"== where a visitor's memory goes: {args.visitors} visitors, {time.monotonic() - began:.0f} s, "
        f"load {load:.2f} -> {os.getloadavg()[0]:.2f}")
    log(table(["step", "RSS growth per visitor", "server RSS after"], rows))


if __name__ == "__main__":
    main()
