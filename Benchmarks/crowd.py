"""Benchmark 25 (issue 36): the crowd at the demo URL, and the one person who jumps.

A crowd of N visitors (`--visitors`, 1,000 and 2,000 by default), each from its own loopback address
(127.2.x.y: per-client limits count them as different people), in processes of their own (a crowd is
on machines of its own): each opens the page (`GET /`), holds the shared event stream as a browser does
(`GET /events/shared`, then `POST /api/streams/ID/viewers`), fetches its first screen's thumbnails, and
reads: every few seconds a scroll (reports every 100 ms while it moves, then a stop), mostly near the
top of the list (the top third of a 300-photo list, skewed to the top), then the thumbnails of the rows
it stopped on. Every report's round trip is timed.

Beside it, in the same run, a person in headless Chromium jumps with a shift-click in the scrollbar's
track (person_input.py) into rows nobody else has seen (below the crowd's third), timed from the jump
to every row on screen showing its final image (lazy_loading.PROBE): first on a fresh server with
nobody else on it, then on another fresh server under the crowd. Over HTTP/1.1, and with --tls over
TLS (the person's Chromium then speaks HTTP/2; the crowd speaks HTTP/1.1 over TLS, one connection for
its requests and one for its stream).

With --chain the person is replaced by the server's own links (server_chain.py's, on the server's
clock): a viewer of this process stops on --jumps x 2 places below the crowd's third, one every 1.5 s,
and its operation events say, per row, the report's arrival -> download started, last byte -> filter
started, filter run, last byte -> filtered, and each event's delivery; beside it a probe visitor (its
own connection and address, in this process, not the crowd's loaded ones) reports a scroll every 100
ms throughout, timing each report: what one visitor's report costs when its own machine is idle. The
crowd's processes also time their own loop (a 50 ms sleep's overshoot), which their report times include.

Printed per crowd size: visitors served (page 200 and a stream joined), refused (by status), streams
lost (ended before the run did), the person's jumps p50 / p95 alone and under the crowd and their
ratio, the crowd's report round trips p50 / p99, the server's resident memory per visitor (VmRSS with
the crowd joined less before, over N; and again at the end of its reading), and its CPU per visitor-minute.
Beside the client's figures, the server's own, from its /metrics read before and after the crowd's
reading (the difference of its histograms' buckets, server_metrics.py): each route's answer time p50 /
p99 and the events' delivery from the pipeline to the streams p50 / p99, so the server's wait and its
client's can be told apart. With --pin the server runs on one core (taskset) and this process, the
crowd's and the person's Chromium on the others, so the server's figures are one core's.

A run is valid only if every answer the server gave from the crowd's arrival to the end of its reading
was 2xx (its /metrics counts them by route and status); an invalid one says so. The headline is the
largest crowd at the service level (`service_level`): every visitor served and none lost, viewport
reports p99 <= 20 ms and events' delivery p99 <= 100 ms (the server's own), and with the person, the
jump's p95 <= 1.3x alone: visitors per core when --pin, else on the cores the server shares.

With --beside-nchan, after each crowd size, its peer in the same run (nchan_peer.py): nginx + nchan on
the server's cores holding as many SSE subscribers and publishing the event rate each of our shared
streams carried (the delivery count over the reading, streams and seconds), its memory per subscriber and
delivery lag printed beside ours.

  python3 Benchmarks/crowd.py [--visitors 1000,2000] [--seconds 40] [--tls] [--pin] [--beside-nchan]
"""
from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import math
import multiprocessing
import os
import random
import re
import resource
import shutil
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

import lazy_loading
import nchan_peer
import person_input
import server_chain
import server_metrics
from common import HOST, ROOT, EventWatcher, SSEProtocol, Server, cpu_seconds, free_port, log, ms, percentile, rss_bytes, table
from http2_throughput import TLSServer
from http_throughput import start_nginx

PHOTOS = 300
TOP_ROWS = PHOTOS // 3
ROWS_ON_SCREEN = 9
UNVERIFIED = ssl._create_unverified_context()


def address(n: int) -> str:
    """The n-th visitor's own loopback address."""
    return f"127.2.{n // 250}.{n % 250 + 1}"


class Connection:
    """One visitor's keep-alive HTTP/1.1 connection from its own address (over TLS when asked); opened
    again if the server closed it between requests."""

    def __init__(self, port: int, source: str, tls: bool):
        self.port, self.source, self.tls = port, source, tls
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body: object | None = None) -> tuple[int, bytes]:
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(
                    HOST, self.port, local_addr=(self.source, 0), ssl=UNVERIFIED if self.tls else None)
            try:
                return await self._exchange(method, path, body)
            except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError

    async def _exchange(self, method: str, path: str, body: object | None) -> tuple[int, bytes]:
        data = b"" if body is None else json.dumps(body).encode()
        self.writer.write(f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nAccept-Encoding: gzip\r\n"
                          f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data)
        await self.writer.drain()
        status = int((await self.reader.readline()).split()[1])
        length, chunked, close, gzipped = 0, False, False, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            length = int(value) if name == "content-length" else length
            chunked = chunked or (name == "transfer-encoding" and "chunked" in value)
            close = close or (name == "connection" and value == "close")
            gzipped = gzipped or (name == "content-encoding" and value == "gzip")
        if chunked:
            parts = []
            while (size := int((await self.reader.readline()).split(b";")[0], 16)):
                parts.append(await self.reader.readexactly(size + 2))
            await self.reader.readline()
            payload = b"".join(p[:-2] for p in parts)
        else:
            payload = await self.reader.readexactly(length)
        if close:
            self.close()
        return status, gzip.decompress(payload) if gzipped else payload

    def close(self) -> None:
        if self.writer:
            self.writer.close()
        self.reader = self.writer = None


def pin(pid: int, cores: set[int]) -> None:
    """Every thread of process `pid` (and so the threads it starts) on `cores` only (taskset)."""
    subprocess.run(["taskset", "-a", "-p", "-c", ",".join(map(str, sorted(cores))), str(pid)], check=True, capture_output=True)


# The answers the crowd's figures are read for, as /metrics labels them (route and status).
CROWD_ROUTES = ("POST /api/viewport 204", "GET /photos/{index}/{variant} 200", "GET / 200", "POST /api/streams/{id}/viewers 204")


def ms1(seconds: float) -> str:
    """Milliseconds to a tenth: the server's own figures are often under one."""
    return "n/a" if seconds != seconds else f"{seconds * 1000:.1f} ms"


def server_line(server: dict) -> str:
    """The server's own figures of a run: each route's answers p50 / p99 (n), then each stream kind's delivery."""
    def one(label: str, figures: tuple[float, float, float]) -> str:
        n, p50, p99 = figures
        return f"{label} {ms1(p50)} / {ms1(p99)} (n {n:.0f})"
    routes = [one(route, server["routes"][route]) for route in CROWD_ROUTES if route in server["routes"]]
    delivery = [one(f"delivery {stream}", figures) for stream, figures in sorted(server["delivery"].items())]
    return "; ".join(routes + delivery) or "nothing recorded"


def run_delay(pid: int) -> float:
    """Seconds the process's threads have spent ready to run but waiting for a core (schedstat)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            pass  # a thread that ended between the listing and the read
    return total / 1e9


def crowd_process(port: int, tls: bool, numbers: list[int], seed: int, joined, go, done, results, nice: int,
                  failed_rows: set[int] = frozenset()) -> None:
    """One process of the crowd: joins `numbers` (page, stream, first thumbnails), says how many on
    `joined`, reads from `go` until `done`, then sends its figures on `results`. The thumbnails of
    `failed_rows` are not asked for (their page shows them failed)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    os.nice(nice)
    rng = random.Random(seed)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        figures = {"served": 0, "refused": {}, "failed": [], "reports": [], "report_errors": 0, "thumbnails": 0,
                   "not_ready": 0, "requests": 0, "lag": []}
        visitors = []

        async def thumbnails(connection: Connection, first: int) -> None:
            for index in range(first, min(PHOTOS, first + ROWS_ON_SCREEN)):
                if index in failed_rows:
                    continue
                status, _ = await connection.request("GET", f"/photos/{index}/thumbnail")
                figures["requests"] += 1
                figures["thumbnails" if status == 200 else "not_ready"] += 1

        async def join(n: int) -> None:
            connection = Connection(port, address(n), tls)
            try:
                status, html = await connection.request("GET", "/")
                figures["requests"] += 1
                if status != 200:
                    figures["refused"][status] = figures["refused"].get(status, 0) + 1
                    return
                viewer = re.search(rb'data-viewer="([^"]+)"', html).group(1).decode()
                named = loop.create_future()
                # Its events are read as its browser would on its own machine: not here (only the stream's id)
                stream = EventWatcher("/events/shared", port, named=named)
                await loop.create_connection(lambda: stream, HOST, port, local_addr=(address(n), 0),
                                             ssl=UNVERIFIED if tls else None)
                stream_id = await asyncio.wait_for(named, 30)
                status, body = await connection.request("POST", f"/api/streams/{stream_id}/viewers", {"viewer": viewer})
                if status != 204:
                    figures["refused"][f"join {status}"] = figures["refused"].get(f"join {status}", 0) + 1
                    stream.close()
                    return
                await thumbnails(connection, 0)
                figures["served"] += 1
                visitors.append((connection, viewer, stream))
            except Exception as error:  # a visitor not served is a figure, not the end of the run
                figures["failed"].append(f"{address(n)}: {type(error).__name__}: {error}"[:200])

        async def report(connection: Connection, body: dict) -> None:
            sent = time.monotonic()
            status, _ = await connection.request("POST", "/api/viewport", body)
            figures["requests"] += 1
            if status == 204 or status == 200:
                figures["reports"].append(time.monotonic() - sent)
            else:
                figures["report_errors"] += 1

        async def read(connection: Connection, viewer: str) -> None:
            while not done.is_set():
                await asyncio.sleep(rng.uniform(2, 6))
                for _ in range(rng.randint(3, 10)):  # a scroll: reports every 100 ms while it moves
                    await report(connection, {"viewer": viewer, "scrolling": True})
                    await asyncio.sleep(0.1)
                first = min(TOP_ROWS - ROWS_ON_SCREEN, int(rng.betavariate(1, 3) * TOP_ROWS))
                await report(connection, {"viewer": viewer, "scrolling": False, "first": first,
                                          "last": first + ROWS_ON_SCREEN - 1})
                await thumbnails(connection, first)

        for batch in range(0, len(numbers), 50):
            await asyncio.gather(*(join(n) for n in numbers[batch:batch + 50]))
        joined.put(len(visitors))
        while not go.is_set():
            await asyncio.sleep(0.05)
        figures["reports"].clear()
        readers = [asyncio.ensure_future(read(c, v)) for c, v, _ in visitors]
        while not done.is_set():
            # This loop's own lag (a 50 ms sleep's overshoot), which every report timed here includes.
            asleep = time.monotonic()
            await asyncio.sleep(0.05)
            figures["lag"].append(time.monotonic() - asleep - 0.05)
        for reader in readers:
            reader.cancel()
        figures["lost"] = sum(1 for _, _, stream in visitors if stream.closed.done())
        for connection, _, stream in visitors:
            stream.close()
            connection.close()
        results.put(figures)

    asyncio.run(main())


async def chain(port: int, tls: bool, stops: int) -> dict:
    """The server's own links under whatever else is on it (see the module's doc): a viewer of this process
    stopping on `stops` places below the crowd's third, and a probe visitor's scroll reports beside it."""
    loop = asyncio.get_running_loop()
    connection = Connection(port, "127.3.0.1", tls)
    status, page = await connection.request("GET", "/")
    assert status == 200, f"chain page: {status}"
    viewer = re.search(rb'data-viewer="([^"]+)"', page).group(1).decode()
    arrivals: list[tuple[float, dict]] = []

    def on_event(event) -> None:
        if event.name == "operation":
            data = json.loads(event.data)
            if "queue" in data:
                arrivals.append((event.arrived, data))

    stream = SSEProtocol(f"/events?viewer={viewer}", port, on_event)
    await loop.create_connection(lambda: stream, HOST, port, local_addr=("127.3.0.1", 0), ssl=UNVERIFIED if tls else None)
    probe = Connection(port, "127.3.0.2", tls)
    status, page = await probe.request("GET", "/")
    probe_viewer = re.search(rb'data-viewer="([^"]+)"', page).group(1).decode()
    # Its stream held as its page would: a viewer that never opens one is forgotten (its reports 404).
    probe_stream = SSEProtocol(f"/events?viewer={probe_viewer}", port, lambda event: None)
    await loop.create_connection(lambda: probe_stream, HOST, port, local_addr=("127.3.0.2", 0), ssl=UNVERIFIED if tls else None)
    probe_times: list[float] = []
    finished = asyncio.Event()

    async def probing() -> None:
        while not finished.is_set():
            sent = time.monotonic()
            status, _ = await probe.request("POST", "/api/viewport", {"viewer": probe_viewer, "scrolling": True})
            if status in (200, 204):
                probe_times.append(time.monotonic() - sent)
            await asyncio.sleep(0.1)

    prober = asyncio.ensure_future(probing())
    rng = random.Random(36)
    reports: list[tuple[float, range]] = []
    try:
        for _ in range(stops):
            first = rng.randrange(TOP_ROWS + ROWS_ON_SCREEN, PHOTOS - ROWS_ON_SCREEN)
            sent = time.monotonic()
            await connection.request("POST", "/api/viewport", {"viewer": viewer, "scrolling": False, "first": first,
                                                               "last": first + ROWS_ON_SCREEN - 1})
            reports.append((sent, range(first, first + ROWS_ON_SCREEN)))
            await asyncio.sleep(1.5)
    finally:
        finished.set()
        await prober
        stream.close()
        probe_stream.close()
        connection.close()
        probe.close()
    # No photo sizes here (the server's built-in origin makes them): the download-past-the-floor row is left out.
    rows = server_chain.figures(arrivals, {})
    # The server's clock placed on this process's by the quickest delivery, as server_chain.figures does.
    least = min(arrived - data["time"] for arrived, data in arrivals)
    started = {data["index"]: data["time"] for _, data in arrivals if data["queue"] == "download" and data["outcome"] == "started"}
    waits = [1000 * (started[i] + least - sent) for sent, indices in reports for i in indices if i in started]
    if waits:
        rows.insert(0, ["report sent -> download started", len(waits), f"{percentile(waits, 50):.1f}",
                        f"{percentile(waits, 90):.1f}", f"{max(waits):.1f}"])
    return {"links": rows, "probe": probe_times}


def browser(tls: bool):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1366,768",
                     "--disable-gpu", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    if tls:
        options.add_argument("--ignore-certificate-errors")
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)


def person_jumps(url: str, tls: bool, jumps: int) -> list[float | None]:
    """The person: opens the page, then jumps (shift-clicks in the track) to rows below the crowd's,
    each to rows nobody has seen; the time from each jump to its rows' final images, in ms."""
    driver = browser(tls)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": lazy_loading.PROBE})
    driver.set_script_timeout(90)  # past the jump's own bound (60 s), which then says None
    try:
        driver.get(url)
        first = driver.execute_async_script(lazy_loading.FIRST, PHOTOS, 60000)
        height = first["height"] or 716
        driver.execute_script("window.__bench.listHeight = arguments[0]", height)
        person_input.focus_list(driver)
        bottom = PHOTOS * lazy_loading.ROW - height
        rows = [TOP_ROWS + 15 + k * (PHOTOS - TOP_ROWS - 30) // max(1, jumps - 1) for k in range(jumps)]
        random.Random(36).shuffle(rows)
        times = []
        for row in rows:
            stop = person_input.jump(driver, f"track:{min(1.0, row * lazy_loading.ROW / bottom):.4f}", 60000)
            times.append(stop["ttv"])
            time.sleep(1.0)
        return times
    finally:
        driver.quit()


def warm(port: int, tls: bool, rows: range = range(0, TOP_ROWS)) -> set[int]:
    """The crowd's rows (`rows`) made sepia before anyone comes (a demo URL's top rows are done by its first visitor);
    the rows that failed (the sample origin answers 404 for a few): a page shows them failed and asks for no image."""
    failed: set[int] = set()

    async def run() -> None:
        connection = Connection(port, "127.0.0.1", tls)
        status, body = await connection.request("POST", "/api/viewers")
        viewer = json.loads(body)["viewer"]
        stream = SSEProtocol(f"/events?viewer={viewer}", port, lambda e: None)
        await asyncio.get_running_loop().create_connection(lambda: stream, HOST, port, ssl=UNVERIFIED if tls else None)
        for first in range(rows.start, rows.stop, 10):
            await connection.request("POST", "/api/viewport", {"viewer": viewer, "scrolling": False, "first": first, "last": first + 9})
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                photos = json.loads((await connection.request("GET", f"/api/photos?from={first}&limit=10"))[1])["photos"]
                if all(p["state"] in ("filtered", "failed") for p in photos):
                    failed.update(first + k for k, p in enumerate(photos) if p["state"] == "failed")
                    break
                await asyncio.sleep(0.3)
        await connection.request("POST", "/api/viewport", {"viewer": viewer, "scrolling": False, "first": 0, "last": 0})
        stream.close()
        connection.close()
    asyncio.run(run())
    return failed


def run(visitors: int, args, tls: tuple[Path, Path] | None) -> dict:
    server_args = ["--photo-count", str(PHOTOS), "--sample-latency-ms", str(args.latency_ms),
                   "--sample-bandwidth", str(args.bandwidth)]
    if tls:
        server_args += ["--tls-cert", str(tls[0]), "--tls-key", str(tls[1])]
    with (TLSServer if tls else Server)(server_args) as server:
        port, pid = server.port, server.pid
        if args.pin:
            pin(pid, args.server_cores)
        failed_rows = warm(port, bool(tls))
        rss_before = rss_bytes(pid)
        metrics_start = server_metrics.scrape(port, bool(tls))
        context = multiprocessing.get_context("spawn")
        joined, results, go, done = context.Queue(), context.Queue(), context.Event(), context.Event()
        shares = [list(range(visitors))[k::args.processes] for k in range(args.processes)] if visitors else []
        processes = [context.Process(target=crowd_process, args=(port, bool(tls), share, k, joined, go, done, results, args.crowd_nice, failed_rows), daemon=True)
                     for k, share in enumerate(shares) if share]
        began = time.monotonic()
        for process in processes:
            process.start()
        held = sum(joined.get(True, 600) for _ in processes)
        join_s = time.monotonic() - began
        time.sleep(2)
        rss_joined = rss_bytes(pid)
        metrics_before = server_metrics.scrape(port, bool(tls))
        go.set()
        cpu_start, wall_start, delay_start = cpu_seconds(pid), time.monotonic(), run_delay(pid)
        scheme = "https" if tls else "http"
        if args.chain:
            jumps, links = [], asyncio.run(chain(port, bool(tls), 2 * args.jumps))
        else:
            jumps, links = person_jumps(f"{scheme}://{HOST}:{port}/", bool(tls), args.jumps), None
        while time.monotonic() - wall_start < args.seconds:
            time.sleep(0.5)
        cpu_used, wall, delayed = cpu_seconds(pid) - cpu_start, time.monotonic() - wall_start, run_delay(pid) - delay_start
        rss_read = rss_bytes(pid)
        metrics_after = server_metrics.scrape(port, bool(tls))
        done.set()
        figures = [results.get(True, 120) for _ in processes]
        for process in processes:
            process.join(30)
        rss_after = rss_bytes(pid)
    merged = {"visitors": visitors, "held": held, "links": links and links["links"], "probe": links["probe"] if links else [], "lag": [], "join_s": join_s, "jumps": jumps, "cpu": cpu_used, "wall": wall, "delayed": delayed,
              "rss_per_visitor": (rss_joined - rss_before) / visitors if visitors else 0,
              "rss_read_per_visitor": (rss_read - rss_before) / visitors if visitors else 0,
              "rss_after": rss_after, "rss_before": rss_before, "refused": {}, "failed": [], "reports": [],
              "not_2xx": {route: seen[0] for route, seen in server_metrics.figures(
                  metrics_start, metrics_after, "http_request_duration_seconds", ("route", "status")).items()
                  if not route.rsplit(" ", 1)[1].startswith("2")},
              "server": {"routes": server_metrics.figures(metrics_before, metrics_after, "http_request_duration_seconds", ("route", "status")),
                         "delivery": server_metrics.figures(metrics_before, metrics_after, "classic_photos_event_delivery_seconds", ("stream",)),
                         "delivery_all": server_metrics.figures(metrics_before, metrics_after, "classic_photos_event_delivery_seconds", ())}}
    for f in figures:
        for key in ("served", "lost", "report_errors", "thumbnails", "not_ready", "requests"):
            merged[key] = merged.get(key, 0) + f[key]
        merged["reports"] += f["reports"]
        merged["lag"] += f["lag"]
        merged["failed"] += f["failed"]
        for status, count in f["refused"].items():
            merged["refused"][status] = merged["refused"].get(status, 0) + count
    return merged


def server_columns(server: dict) -> list[str]:
    """The table's columns of the server's own figures: its viewport reports' p50 / p99, and the events' delivery
    over every stream kind."""
    none = (0, math.nan, math.nan)
    reports, delivery = server["routes"].get("POST /api/viewport 204", none), server["delivery_all"].get("", none)
    return [f"{ms1(reports[1])} / {ms1(reports[2])}", f"{ms1(delivery[1])} / {ms1(delivery[2])}"]


def service_level(crowd: dict, alone: dict | None) -> list[str]:
    """What keeps crowd `crowd` from the headline's service level (nothing when it is met): all served and
    none lost, every answer 2xx, the server's viewport reports p99 <= 20 ms, its events' delivery p99 <= 100 ms,
    and (with the person, `alone` given) the jump's p95 <= 1.3x alone."""
    none = (0, math.nan, math.nan)
    reports = crowd["server"]["routes"].get("POST /api/viewport 204", none)[2]
    delivery = crowd["server"]["delivery_all"].get("", none)[2]
    missed = []
    if crowd["served"] < crowd["visitors"] or crowd["lost"] or crowd["failed"]:
        missed.append(f"served {crowd['served']}/{crowd['visitors']}, lost {crowd['lost']}")
    if crowd["not_2xx"] or crowd["refused"] or crowd["report_errors"] or crowd["not_ready"]:
        missed.append(f"answers not 2xx {crowd['not_2xx'] or crowd['refused'] or crowd['report_errors'] or crowd['not_ready']}")
    if not reports <= 0.020:
        missed.append(f"reports p99 {ms1(reports)}")
    if not delivery <= 0.100:
        missed.append(f"delivery p99 {ms1(delivery)}")
    if alone is not None:
        a = [t for t in alone["jumps"] if t is not None]
        c = [t for t in crowd["jumps"] if t is not None]
        ratio = percentile(c, 95) / percentile(a, 95) if a and c else math.nan
        if not ratio <= 1.3 or None in crowd["jumps"]:
            missed.append(f"jump p95 {ratio:.2f}x alone")
    return missed


def nchan_beside(count: int, crowd: dict, args) -> None:
    """The peer in the same run (nchan_peer.py), as many subscribers as the crowd held streams, publishing the
    event rate each shared stream carried; its figures logged beside ours."""
    shared = crowd["server"]["delivery"].get("shared", (0, math.nan, math.nan))
    rate = shared[0] / crowd["wall"] / max(crowd["served"], 1)
    peer = nchan_peer.beside_nchan(count, max(rate, 1.0), crowd["wall"], cores=args.server_cores if args.pin else None,
                                   processes=args.processes, nice=args.crowd_nice)
    log(f"  {count}: beside, {nchan_peer.summary(peer)}")
    ours_kb, theirs_kb = crowd["rss_per_visitor"] / 1024, peer["rss_per_subscriber"] / 1024
    log(f"  {count}: ours against nchan at {rate:.1f} events/s a stream: memory {ours_kb:.1f} KB a visitor (page, viewer, "
        f"two connections) against {theirs_kb:.1f} KB a subscriber ({ours_kb / max(theirs_kb, 1e-9):.1f}x); delivery p50 / p99 "
        f"ours {ms1(shared[1])} / {ms1(shared[2])} (server side: made to written) against nchan's "
        f"{ms(percentile(peer['lags'], 50))} / {ms(percentile(peer['lags'], 99))} (client side: published to read); "
        f"CPU {crowd['cpu'] / crowd['wall']:.2f} cores against {peer['cpu'] / peer['wall']:.2f}; load {os.getloadavg()[0]:.2f}")


def thumbnails_beside_nginx(rate: float, seconds: float, visitors: int, tls: tuple[Path, Path] | None) -> dict:
    """The crowd's thumbnail requests again (`rate` a second for `seconds`, h2load over HTTP/1.1 keep-alive,
    100 connections), against a fresh server of ours with its top rows made and against nginx serving the
    same bytes: each one's CPU per visitor-minute of the crowd for the same requests. The reports and
    streams have no static counterpart; the thumbnails are most of what a crowd asks for."""
    clients = 100
    scheme = "https" if tls else "http"
    cost = {}
    server_args = ["--photo-count", str(PHOTOS), "--sample-latency-ms", "0"]
    if tls:
        server_args += ["--tls-cert", str(tls[0]), "--tls-key", str(tls[1])]
    with (TLSServer if tls else Server)(server_args) as server:
        warm(server.port, bool(tls), range(0, 10))
        docroot = Path(tempfile.mkdtemp(prefix="bench-crowd-nginx-"))
        fetch = lambda port, path: asyncio.run(Connection(port, "127.0.0.1", bool(tls)).request("GET", path))
        (docroot / "thumbnail.jpg").write_bytes(fetch(server.port, "/photos/0/thumbnail")[1])
        nginx_port = free_port()
        nginx = start_nginx(docroot, nginx_port, tls=tls, ready=lambda port: fetch(port, "/thumbnail.jpg")[0] == 200)
        try:
            children = Path(f"/proc/{nginx.pid}/task/{nginx.pid}/children").read_text().split()
            pids = {"ours": [server.pid], "nginx": [nginx.pid] + [int(pid) for pid in children]}
            for who, url in (("ours", f"{scheme}://{HOST}:{server.port}/photos/0/thumbnail"),
                             ("nginx", f"{scheme}://{HOST}:{nginx_port}/thumbnail.jpg")):
                before = sum(cpu_seconds(pid) for pid in pids[who])
                out = subprocess.run(["h2load", "--h1", "-c", str(clients), "--rps", f"{rate / clients:.2f}", "-D", f"{seconds:.0f}", url],
                                     capture_output=True, text=True, timeout=seconds + 120).stdout
                used = sum(cpu_seconds(pid) for pid in pids[who]) - before
                answered = re.search(r"(\d+) succeeded", out)
                cost[who] = {"cpu": used, "requests": int(answered.group(1)) if answered else 0,
                             "per_visitor_minute": used / (visitors * seconds / 60)}
        finally:
            nginx.terminate()
            nginx.wait(timeout=10)
            shutil.rmtree(docroot, ignore_errors=True)
    return cost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--visitors", default="1000,2000")
    parser.add_argument("--seconds", type=float, default=40, help="the crowd's reading per size (at least the person's jumps)")
    parser.add_argument("--jumps", type=int, default=8)
    parser.add_argument("--processes", type=int, default=2, help="processes the crowd is spread over")
    parser.add_argument("--latency-ms", type=int, default=100)
    parser.add_argument("--bandwidth", type=int, default=2_000_000)
    parser.add_argument("--tls", action="store_true", help="over TLS (the person's Chromium on HTTP/2)")
    parser.add_argument("--chain", action="store_true",
                        help="the server's own links of a viewer's stops and a probe visitor's reports instead of the person in Chromium")
    parser.add_argument("--crowd-nice", type=int, default=0,
                        help="the crowd's processes' niceness (19: they take a core only when the server and the person leave it, "
                             "as a crowd on machines of its own would)")
    parser.add_argument("--pin", action="store_true",
                        help="the server on one core (taskset), this process, the crowd and the person's Chromium on the others")
    parser.add_argument("--beside-nchan", action="store_true",
                        help="after each crowd, nginx + nchan holding as many SSE subscribers at the same event rate: memory and lag beside ours")
    parser.add_argument("--beside-nginx", action="store_true",
                        help="then the crowd's thumbnail requests again at the same rate, ours against nginx: CPU for the same requests")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.pin:
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) < 2:
            parser.error("--pin needs two cores: one for the server, one for the clients")
        args.server_cores, clients = {cores[0]}, set(cores[1:])
        pin(os.getpid(), clients)  # the crowd's processes and Chromium, started from here, inherit it
    tls = None
    if args.tls:
        scratch = Path(tempfile.mkdtemp(prefix="bench-crowd-"))
        subprocess.run([str(ROOT / "scripts" / "self-signed-cert.sh"), str(scratch / "tls")], check=True,
                       capture_output=True)
        tls = (scratch / "tls" / "cert.pem", scratch / "tls" / "key.pem")
    log(f"== 25. the crowd at the demo URL ({'TLS, the person on HTTP/2' if tls else 'HTTP/1.1'}): {PHOTOS} photos, "
        f"origin {args.latency_ms} ms + {args.bandwidth} B/s, crowd reading {args.seconds:g} s, {args.jumps} jumps; "
        f"{f'server pinned to core {min(args.server_cores)}, clients to the rest; ' if args.pin else ''}"
        f"load {os.getloadavg()[0]:.2f}")
    alone = run(0, args, tls)
    rows, met = [], []
    for count in (int(c) for c in args.visitors.split(",")):
        crowd = run(count, args, tls)
        if crowd["not_2xx"]:
            log(f"  {count}: INVALID run: answers not 2xx {crowd['not_2xx']}")
        missed = service_level(crowd, None if args.chain else alone)
        log(f"  {count}: service level {'met' if not missed else 'missed: ' + '; '.join(missed)}")
        if not missed:
            met.append(count)
        if args.beside_nchan:
            nchan_beside(count, crowd, args)
        if args.chain:
            log(f"  {count}: the server's links alone | under the crowd (n, p50, p90, max ms):")
            under = {row[0]: row for row in crowd["links"]}
            for row in alone["links"]:
                other = under.get(row[0], [row[0], 0, "-", "-", "-"])
                log(f"    {row[0]:<32} {row[1]:>4} {row[2]:>7} {row[3]:>7} {row[4]:>7}  | {other[1]:>4} {other[2]:>7} {other[3]:>7} {other[4]:>7}")
            log(f"  {count}: a probe visitor's scroll reports p50 / p99: alone {ms(percentile(alone['probe'], 50))} / "
                f"{ms(percentile(alone['probe'], 99))} (n {len(alone['probe'])}), under the crowd {ms(percentile(crowd['probe'], 50))} / "
                f"{ms(percentile(crowd['probe'], 99))} (n {len(crowd['probe'])}); the crowd's own loop lag p50 / p99 "
                f"{ms(percentile(crowd['lag'], 50))} / {ms(percentile(crowd['lag'], 99))}; the server's threads waiting for a core "
                f"{alone['delayed'] / alone['wall']:.2f} alone, {crowd['delayed'] / crowd['wall']:.2f} under the crowd (thread-seconds a second)")
            log(f"  {count}: the server's own, alone: {server_line(alone['server'])}")
            log(f"  {count}: the server's own, under the crowd: {server_line(crowd['server'])}")
            rows.append([count, f"{crowd['served']}/{count}", crowd["refused"] or "-", len(crowd["failed"]), crowd["lost"],
                         "-", "-", "-", f"{ms(percentile(crowd['reports'], 50))} / {ms(percentile(crowd['reports'], 99))}",
                         *server_columns(crowd["server"]),
                         f"{crowd['rss_per_visitor'] / 1024:.1f} KB", f"{crowd['cpu'] / (count * crowd['wall'] / 60) * 1000:.1f} ms",
                         f"{crowd['cpu'] / crowd['wall']:.2f}", f"{crowd['requests'] / crowd['wall']:.0f}/s"])
            continue
        a = [t for t in alone["jumps"] if t is not None]
        c = [t for t in crowd["jumps"] if t is not None]
        minutes = crowd["wall"] / 60
        rows.append([count, f"{crowd['served']}/{count}", crowd["refused"] or "-", len(crowd["failed"]), crowd["lost"],
                     f"{percentile(a, 50):.0f} / {percentile(a, 95):.0f}", f"{percentile(c, 50):.0f} / {percentile(c, 95):.0f}",
                     f"{percentile(c, 50) / percentile(a, 50):.2f} / {percentile(c, 95) / percentile(a, 95):.2f}",
                     f"{ms(percentile(crowd['reports'], 50))} / {ms(percentile(crowd['reports'], 99))}",
                     *server_columns(crowd["server"]),
                     f"{crowd['rss_per_visitor'] / 1024:.1f} KB", f"{crowd['cpu'] / (count * minutes) * 1000:.1f} ms",
                     f"{crowd['cpu'] / crowd['wall']:.2f}", f"{crowd['requests'] / crowd['wall']:.0f}/s"])
        for line in crowd["failed"][:5]:
            log(f"  not served: {line}")
        log(f"  {count}: the server's own, under the crowd: {server_line(crowd['server'])}")
        log(f"  {count}: joined in {crowd['join_s']:.0f} s; timeouts in jumps alone {alone['jumps'].count(None)}, "
            f"under the crowd {crowd['jumps'].count(None)}; reports refused {crowd['report_errors']}; thumbnails "
            f"{crowd['thumbnails']} (not ready {crowd['not_ready']}); RSS per visitor after reading "
            f"{crowd['rss_read_per_visitor'] / 1024:.1f} KB; the server's threads waiting for a core {crowd['delayed'] / crowd['wall']:.2f} "
            f"thread-seconds a second (alone {alone['delayed'] / alone['wall']:.2f}); load {os.getloadavg()[0]:.2f}")
        if args.beside_nginx:
            rate = crowd["thumbnails"] / crowd["wall"]
            cost = thumbnails_beside_nginx(rate, crowd["wall"], count, tls)
            log(f"  {count}: the crowd's thumbnails again, {rate:.0f}/s for {crowd['wall']:.0f} s "
                f"({cost['ours']['requests']} and {cost['nginx']['requests']} answered): CPU per visitor-minute ours "
                f"{cost['ours']['per_visitor_minute'] * 1000:.1f} ms, nginx {cost['nginx']['per_visitor_minute'] * 1000:.1f} ms "
                f"({cost['ours']['cpu'] / max(cost['nginx']['cpu'], 1e-9):.1f}x); the whole crowd on ours "
                f"{crowd['cpu'] / (count * minutes) * 1000:.1f} ms")
    log(table(["visitors", "served", "refused", "failed", "streams lost", "jump p50/p95 alone ms", "under crowd ms",
               "ratio p50/p95", "reports p50/p99", "server's reports p50/p99", "server's delivery p50/p99", "RSS/visitor", "CPU/visitor-min", "server cores", "crowd req"], rows))
    where = "on one core (pinned)" if args.pin else f"on the {os.cpu_count()} cores it shares with its clients"
    log(f"headline: {max(met) if met else 'none'} of {args.visitors} visitors {where} at the service level (server's "
        f"reports p99 <= 20 ms, delivery p99 <= 100 ms, all served, none lost, every answer 2xx"
        f"{'' if args.chain else ', jump p95 <= 1.3x'}); load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
