#!/usr/bin/env python3
"""Refill after an outage (issue 40): a page is open, the server is killed (-9), the person scrolls to rows
not done yet while it is gone, and the server comes back on the same port and cache after a short or a long
outage. Printed per run: seconds from the server listening again to the page's rows on screen all sepia (or
failed), with the page's steps on the way (stream open again, new viewer, first report answered), polled
every 50 ms; then the long outage's median against the short one's, in the same run.

    python3 Benchmarks/outage_refill.py [--short 5] [--long 70] [--runs 2] [--edge]

With --edge the page reaches the server through an edge that answers 502 while the server is down (as
deploy/nginx does: an event stream refused with 502 is closed by the browser, not retried by it).
"""
from __future__ import annotations

import argparse
import socket
import statistics
import threading
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "browser"))

import conftest  # noqa: E402
from conftest import Server, new_driver, own_cache_dir  # noqa: E402
from test_page import ROW_HEIGHT, Page, wait_for  # noqa: E402

PROBE = """
    const r = classicPhotos.reports;
    return { connection: classicPhotos.connection, viewer: classicPhotos.viewer, acknowledged: r.acknowledged,
             failures: r.failures, sent: r.sent };
"""
SETTINGS = dict(photo_count=300, latency_ms=20, bandwidth=20_000_000)


class Edge:
    """A TCP relay on a port of its own to `backend_port`: a connection it cannot open to the server is
    answered `502 Bad Gateway`, as a reverse proxy in front of a server that is down answers."""

    def __init__(self, backend_port: int):
        self.backend_port = backend_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.listener.accept()
            threading.Thread(target=self.relay, args=(client,), daemon=True).start()

    def relay(self, client: socket.socket):
        try:
            backend = socket.create_connection(("127.0.0.1", self.backend_port), timeout=2)
        except OSError:
            try:
                client.recv(65536)
                client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            finally:
                client.close()
            return
        backend.settimeout(None)

        def pipe(source: socket.socket, sink: socket.socket):
            try:
                while data := source.recv(65536):
                    sink.sendall(data)
            except OSError:
                pass
            finally:
                for s in (source, sink):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
        threading.Thread(target=pipe, args=(client, backend), daemon=True).start()
        pipe(backend, client)


class ViaEdge:
    """The server as the page sees it through `edge`."""

    def __init__(self, server: Server, edge: Edge):
        self.server, self.edge = server, edge
        self.base_url = f"http://127.0.0.1:{edge.port}"


def restart(workdir: Path, cache: Path, name: str, port: int) -> Server:
    """A server on `port` (the one the page knows), on `cache`."""
    chosen, conftest.free_port = conftest.free_port, lambda: port
    try:
        return Server(workdir, cache, name, **SETTINGS)
    finally:
        conftest.free_port = chosen


def one_outage(workdir: Path, seconds: float, run: int, edge: bool) -> dict:
    cache = own_cache_dir(workdir, f"outage-{seconds:g}-{run}")
    server = Server(workdir, cache, f"outage-{seconds:g}-{run}-a", **SETTINGS)
    server.wait_ready()
    driver = new_driver()
    try:
        page = Page(driver, ViaEdge(server, Edge(server.port)) if edge else server).open()
        first, last = page.visible_range()
        page.wait_filtered(first, last, allow_failed=True)
        # When the server dies, and the person scrolls to rows not done yet while it is gone
        server.process.kill()
        server.process.wait(timeout=10)
        wait_for(driver, lambda d: d.execute_script("return classicPhotos.connection") != "open", 30, "never noticed")
        page.scroll_to([100 * ROW_HEIGHT])
        wait_for(driver, lambda d: not d.execute_script("return classicPhotos.scrolling"), 10, "the scroll never ended")
        time.sleep(seconds)  # the outage itself
        before = driver.execute_script(PROBE)
        again = restart(workdir, cache, f"outage-{seconds:g}-{run}-b", server.port)
        again.wait_listening()
        back = time.monotonic()
        steps: dict[str, float] = {}
        first, last = page.visible_range()
        rows_done = f"""
            return [...Array({last - first + 1}).keys()].every((i) => {{
                const row = document.querySelector('#list .row[data-index="' + ({first} + i) + '"]');
                const img = row && row.querySelector('img.thumb');
                return !!img && img.complete && img.naturalWidth > 0
                    && ((row.dataset.state === 'filtered' && img.getAttribute('src').endsWith('/thumbnail'))
                        || row.dataset.state === 'failed');
            }});
        """
        while time.monotonic() - back < 120:
            probe = driver.execute_script(PROBE)
            now = time.monotonic() - back
            if probe["connection"] == "open":
                steps.setdefault("stream open", now)
            if probe["viewer"] != before["viewer"]:
                steps.setdefault("new viewer", now)
            if probe["acknowledged"] > before["acknowledged"]:
                steps.setdefault("report answered", now)
            if driver.execute_script(rows_done):
                steps["rows filled"] = now
                break
            time.sleep(0.05)
        steps["reporter failures before"] = before["failures"]
        again.stop()
        return steps
    finally:
        driver.quit()
        if server.process.poll() is None:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", type=float, default=5)
    parser.add_argument("--long", type=float, default=70)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--edge", action="store_true", help="through an edge that answers 502 while the server is down")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="classic-photos-outage-"))
    results: dict[float, list[float]] = {args.short: [], args.long: []}
    for run in range(args.runs):
        for seconds in (args.short, args.long):
            steps = one_outage(workdir, seconds, run, args.edge)
            results[seconds].append(steps.get("rows filled", float("inf")))
            print(f"outage {seconds:g} s, run {run + 1}: " + ", ".join(
                f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in steps.items()), flush=True)
    short, long = statistics.median(results[args.short]), statistics.median(results[args.long])
    print(f"median refill: after {args.short:g} s {short:.2f} s, after {args.long:g} s {long:.2f} s: "
          f"{long / short:.2f}x")


if __name__ == "__main__":
    main()
