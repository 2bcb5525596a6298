"""Attacks whose cost grew with the list (issue 22), on lists of 10,000 and 100,000 photos served by
a loopback origin (`--source`). Where a test holds the origin's images past the top rows, the work
it starts there stays in flight, so each request meets as much pending work as the server allows,
while a normal client's rows (at the top) are served. A normal client is served during each attack
and after it; deadlines are failure bounds, never the measure (the figures are
Benchmarks/list_length.py's, where every image is held)."""
from __future__ import annotations

import json
import socket
import sys
import threading
import time
from pathlib import Path

import support

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pysupport"))
from long_list_origin import LongListOrigin  # noqa: E402

STARTUP = 240  # seconds for a debug build to load 100,000 rows (failure bound)
NORMAL_ROWS = 100  # the origin serves these at once (a normal client's rows are at the top), holds the rest


def unread_streams(server, count: int) -> list[socket.socket]:
    """`count` new viewers' event streams that are never read (a 4 KiB receive buffer)."""
    socks = []
    for _ in range(count):
        viewer = new_viewer(server)
        sock = support.connect(server.host, server.port, rcvbuf=4096)
        sock.sendall(f"GET /events?viewer={viewer} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        socks.append(sock)
    return socks


def read_down(server, reader: str, first: int, rows: int = 40) -> int:
    """`reader` reports the `rows` rows from `first` on screen (work for every stream to hear of); the next first row."""
    status, _, body = request(server, "POST", "/api/viewport",
                              {"viewer": reader, "scrolling": False, "first": first, "last": first + rows - 1})
    assert status == 204, body
    return first + rows


def start_long(start_server, origin: LongListOrigin, name: str, env: dict | None = None):
    server = start_server(name, wait=False, flags=["--source", origin.source], env=env)
    server.wait_ready(STARTUP)
    return server


def request(server, method: str, path: str, body: dict | None = None, timeout: float = 30):
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if data is not None else {}
    return support.http_request(server.host, server.port, method, path, data, headers, timeout=timeout)


def new_viewer(server) -> str:
    status, _, body = request(server, "POST", "/api/viewers")
    assert status == 201, body
    return json.loads(body)["viewer"]


class HealthProbe(threading.Thread):
    """Asks `/healthz` over and over while an attack goes on; `failures` lists the answers that were
    not a 200 within `bound` seconds."""

    def __init__(self, server, bound: float = 10):
        super().__init__(daemon=True)
        self.server, self.bound = server, bound
        self.stopping = threading.Event()
        self.answered = 0
        self.failures: list[str] = []

    def run(self):
        while not self.stopping.is_set():
            try:
                status, _, body = request(self.server, "GET", "/healthz", timeout=self.bound)
                self.answered += 1
                if status != 200:
                    self.failures.append(f"{status} {body[:100]!r}")
            except OSError as error:
                self.failures.append(repr(error))
            self.stopping.wait(0.05)

    def stop(self) -> "HealthProbe":
        self.stopping.set()
        self.join(timeout=30)
        return self


def test_a_viewer_wanting_every_row_then_a_few_stalls_nobody(start_server):
    with LongListOrigin(10_000) as origin:
        server = start_long(start_server, origin, "wants-everything")
        attacker = new_viewer(server)
        stream = support.EventStream(server.host, server.port, attacker)
        probe = HealthProbe(server)
        probe.start()
        during = support.NormalClientThread(server.host, server.port, deadline=120)
        try:
            # Every row on screen is refused with the reason: no screen holds 10,000 rows.
            status, _, body = request(server, "POST", "/api/viewport",
                                      {"viewer": attacker, "scrolling": False, "first": 0, "last": 9_999})
            assert status == 422 and "at most" in json.loads(body)["error"], body
            # Wanting everything the way the API allows: the eager strategy, then a few rows, again and again.
            during.start()
            for round_ in range(5):
                for strategy, first in (("eager", 0), ("visible", 5_000 + round_ * 300)):
                    status, _, body = request(server, "POST", "/api/viewport", {
                        "viewer": attacker, "scrolling": False, "first": first, "last": first + 199,
                        "strategy": strategy}, timeout=30)
                    assert status == 204, body
            other = new_viewer(server)
            status, _, body = request(server, "POST", "/api/viewport",
                                      {"viewer": other, "scrolling": False, "first": 9_000, "last": 9_010})
            assert status == 204, body
            during.join(timeout=150)
            assert during.error is None, f"while a viewer wanted everything: {during.error}"
        finally:
            probe.stop()
            stream.close()
            origin.open_gate()
        server.assert_alive()
        assert probe.answered > 0 and not probe.failures, f"/healthz: {probe.failures[:5]} of {probe.answered}"
        support.assert_normal_client_served(server.host, server.port, when="after the viewer wanted everything")


def test_eager_at_a_long_list_asks_for_a_window_not_the_list(start_server):
    with LongListOrigin(100_000, hold_from=NORMAL_ROWS) as origin:
        server = start_long(start_server, origin, "eager-long-list")
        probe = HealthProbe(server)
        probe.start()
        try:
            for _ in range(3):
                status, _, page = request(server, "GET", "/?strategy=eager", timeout=60)
                assert status == 200 and b"data-viewer=" in page
            status, _, body = request(server, "GET", "/api/stats")
            downloads = json.loads(body)["downloads"]
            in_progress = downloads["pending"] + downloads["executing"]
            # Three eager viewers share one window of rows at the top (a few dozen), not 300,000 operations.
            assert 0 < in_progress <= 100, downloads
            # The list comes in pages: one answer is a page at any length (12.8 MB at 100,000 rows before).
            status, _, body = request(server, "GET", "/api/photos")
            listing = json.loads(body)
            assert status == 200 and listing["count"] == 100_000 and len(listing["photos"]) == 1_000, len(body)
            assert len(body) < 400_000 and listing["next"] == 1_000, len(body)
            status, _, body = request(server, "GET", "/api/photos?from=99990")
            assert [row["index"] for row in json.loads(body)["photos"]] == list(range(99_990, 100_000))
            support.assert_normal_client_served(server.host, server.port, when="while three eager viewers waited")
        finally:
            probe.stop()
            origin.open_gate()
        assert probe.answered > 0 and not probe.failures, f"/healthz: {probe.failures[:5]} of {probe.answered}"
        server.assert_alive()


UNREAD = 40
# A stream's snapshot is the rows near its viewer's viewport, not the list (12.8 MB at 100,000 rows before).
SNAPSHOT_BOUND = 100_000
# Each unread stream: its outbox (256 KiB at most), NIO's write buffer and the socket's, its viewer.
RSS_PER_STREAM = 1_000_000


def test_unread_streams_at_a_long_list_stay_within_a_byte_budget(start_server):
    # The reader's rows are held (their work starts and is cancelled, events without images): what
    # grows is the streams, not the image cache.
    with LongListOrigin(100_000, hold_from=NORMAL_ROWS) as origin:
        server = start_long(start_server, origin, "unread-long-list")
        viewer = new_viewer(server)
        stream = support.EventStream(server.host, server.port, viewer)
        try:
            sizes = {}
            while "snapshot" not in sizes:
                name, data = stream.next_event()
                sizes[name] = len(data)
        finally:
            stream.close()
        assert sizes["snapshot"] < SNAPSHOT_BOUND, sizes

        rss_before = server.rss_bytes()
        socks: list[socket.socket] = []
        try:
            socks = unread_streams(server, UNREAD)
            reader, first = new_viewer(server), NORMAL_ROWS
            drained = Drained(server, reader)
            while first < NORMAL_ROWS + 2_000:
                first = read_down(server, reader, first)
            drained.close()
            support.assert_normal_client_served(server.host, server.port, when=f"with {UNREAD} unread streams")
            growth = server.rss_bytes() - rss_before
        finally:
            for sock in socks:
                sock.close()
        assert growth < UNREAD * RSS_PER_STREAM, f"{UNREAD} unread streams grew the process by {growth / 1e6:.0f} MB"
        server.assert_alive()
        support.assert_normal_client_served(server.host, server.port, when="after the unread streams closed")


class Drained(threading.Thread):
    """A viewer's event stream read to its end on a thread of its own (a viewer that reads)."""

    def __init__(self, server, viewer: str):
        super().__init__(daemon=True)
        self.stream = support.EventStream(server.host, server.port, viewer)
        self.start()

    def run(self):
        try:
            while self.stream.next_event() is not None:
                pass
        except Exception:  # noqa: BLE001 - closed under it by close(): the end of the stream either way
            pass

    def close(self):
        self.stream.close()


def unsent_bytes(server) -> int:
    status, _, body = request(server, "GET", "/api/stats")
    return json.loads(body)["unsentEventBytes"] if status == 200 else 0


def test_new_streams_are_refused_past_the_unread_events_budget(start_server):
    budget = 1_048_576
    with LongListOrigin(10_000) as origin:
        server = start_long(start_server, origin, "unsent-budget", env={"CLASSIC_PHOTOS_UNSENT_EVENTS_BUDGET_MB": "1"})
        reader = new_viewer(server)
        drained = Drained(server, reader)
        socks: list[socket.socket] = []
        try:
            socks = unread_streams(server, UNREAD)
            # Each unread stream keeps up to 256 KiB of the events every viewer is sent (once its
            # socket's buffers are full); a viewer reading down the list makes them (its work changes
            # the figures every tick), ten rows a report, until they hold the budget: reports taken at
            # once reached the list's end 40 rows a step before the unread streams' buffers were full.
            first, deadline = 0, time.monotonic() + 180
            while unsent_bytes(server) <= budget and time.monotonic() < deadline:
                for _ in range(10):
                    first = (read_down(server, reader, first) - 30) % 9_900
                    time.sleep(0.05)
            assert unsent_bytes(server) > budget, f"{UNREAD} unread streams never held more than 1 MiB"
            # Then a new stream is refused with the reason, and a normal client's /healthz answers
            stream = support.EventStream(server.host, server.port, new_viewer(server))
            try:
                body = stream.response.read()
                assert stream.status == 503, (stream.status, body[:200])
                assert "budget" in json.loads(body)["error"], body
            finally:
                stream.close()
            assert request(server, "GET", "/healthz")[0] == 200
        finally:
            drained.close()
            for sock in socks:
                sock.close()
        server.assert_alive()
        # Their bytes are given back as soon as the unread streams are gone.
        assert support.wait_until(lambda: _stream_opens(server), 60), "new streams still refused after the unread ones closed"
        support.assert_normal_client_served(server.host, server.port, when="after the unread streams closed")


def _stream_opens(server) -> bool:
    stream = support.EventStream(server.host, server.port, new_viewer(server))
    try:
        return stream.status == 200
    finally:
        stream.close()


def test_slow_lab_transfers_are_refused_past_their_budget(start_server):
    limit = 8
    server = start_server("lab-transfers", env={"CLASSIC_PHOTOS_MAX_LAB_IMAGE_TRANSFERS": str(limit)})
    status, _, body = request(server, "GET", "/api/photos")
    file = json.loads(body)["photos"][0]["url"].rsplit("/images/", 1)[1]
    ask = f"GET /lab/images/{file}?latency=0&bandwidth=1000 HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    socks: list[socket.socket] = []
    try:
        for _ in range(limit):
            sock = support.connect(server.host, server.port, rcvbuf=4096)
            sock.sendall(ask)
            assert sock.recv(4096).startswith(b"HTTP/1.1 200"), "a transfer within the budget was refused"
            socks.append(sock)
        status, headers, body = support.http_request(server.host, server.port, "GET", ask.split(b" ")[1].decode())
        assert status == 503, (status, body[:200])
        assert "lab photos" in json.loads(body)["error"], body
        support.assert_normal_client_served(server.host, server.port, when=f"with {limit} slow lab transfers")
    finally:
        for sock in socks:
            sock.close()
    # The places come back as the transfers end (their connections closed).
    fast = f"/lab/images/{file}?latency=0&bandwidth=100000000"
    assert support.wait_until(lambda: support.http_request(server.host, server.port, "GET", fast)[0] == 200, 30), \
        "lab photos still refused after the slow transfers closed"
    support.assert_normal_client_served(server.host, server.port, when="after the slow lab transfers")
