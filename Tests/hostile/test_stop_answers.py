"""A stop's answer (`POST /api/viewport?thumbnails=A-B`, issue 57 item 5, issue 58): the report is taken
first, so a row with nothing made nor on its way costs nothing, and an answer nobody reads holds at most
one frame a row.

Before, a page asked for a stop's thumbnails on a request of its own (`GET /photos/thumbnails`), waited
for rows nobody had started for 0.5 s in case the report came (32 tasks, waits and timers an answer:
60 connections of one address took 8.6 s of CPU in 15 s), and queued every new preview of a row still
downloading for a reader that never read (about 0.6 MB an answer until the send timeout)."""
from __future__ import annotations

import http.client
import json
import socket
import statistics
import threading
import time

import support

ROWS = 32
CONNECTIONS = 60
FLOOD_SECONDS = 4


class MissingOrigin(support.LoopbackOrigin):
    """A list of `ROWS` photos the origin does not have (404 each): every row fails at once."""

    def serve(self, request):
        if request.path == "/photos.json":
            entries = {f"Missing {n:02d}": self.url(f"/missing{n}.jpg") for n in range(ROWS)}
            self.reply(request, json.dumps(entries).encode(), "application/json")
        else:
            self.reply(request, b"no such photo", "text/plain", status=404)


def new_viewer(server) -> str:
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
    assert status == 201, body
    return json.loads(body)["viewer"]


def stop_body(viewer: str, first: int, last: int) -> bytes:
    return json.dumps({"viewer": viewer, "scrolling": False, "first": first, "last": last}).encode()


def all_in(server, state: str, last: int) -> bool:
    """Whether rows 0...`last` are all in `state` (`failed`, `filtered`)."""
    status, _, body = support.http_request(server.host, server.port, "GET", "/api/photos")
    photos = json.loads(body).get("photos") or []
    return status == 200 and len(photos) > last and all(p.get("state") == state for p in photos[: last + 1])


def test_a_stop_whose_rows_have_nothing_coming_is_answered_at_once_and_costs_little(server_factory):
    origin = MissingOrigin("missing-origin")
    try:
        server = server_factory.start("stop-nothing-coming", flags=["--source", origin.url("/photos.json")])
        viewer = new_viewer(server)
        target = f"/api/viewport?thumbnails=0-{ROWS - 1}"
        # Given every row of a stop failed (the first stop started them; the origin has none of them)
        status, _, _ = support.http_request(server.host, server.port, "POST", target, stop_body(viewer, 0, ROWS - 1),
                                            headers={"Content-Type": "application/json"})
        assert status == 200
        assert support.wait_until(lambda: all_in(server, "failed", ROWS - 1), 60), server.describe()

        # When 60 connections of one address send that stop again and again
        times: list[float] = []
        bodies: list[bytes] = []
        statuses: list[int] = []
        lock = threading.Lock()
        end = time.monotonic() + FLOOD_SECONDS

        def flood():
            connection = http.client.HTTPConnection(server.host, server.port, timeout=30)
            try:
                while time.monotonic() < end:
                    start = time.monotonic()
                    connection.request("POST", target, body=stop_body(viewer, 0, ROWS - 1),
                                       headers={"Content-Type": "application/json"})
                    response = connection.getresponse()
                    body = response.read()
                    with lock:
                        times.append(time.monotonic() - start)
                        bodies.append(body)
                        statuses.append(response.status)
            finally:
                connection.close()

        cpu_before = support.cpu_seconds(server.pid)
        threads = [threading.Thread(target=flood) for _ in range(CONNECTIONS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(FLOOD_SECONDS + 60)
        cpu = support.cpu_seconds(server.pid) - cpu_before

        # Then each answer came at once, empty (nothing to wait for: no grace for a report on its way),
        # and an answer cost the server well under the 5 ms the waits cost
        assert set(statuses) == {200} and not any(bodies), (set(statuses), [b[:80] for b in bodies if b][:3])
        assert len(times) > 200, len(times)
        assert statistics.median(times) < 0.1, statistics.median(times)
        # (not the slowest: 60 client threads share one interpreter, so a few wait on the client's side)
        assert statistics.quantiles(times, n=10)[-1] < 0.25, statistics.quantiles(times, n=10)
        print(f"{len(times)} answers, median {statistics.median(times) * 1000:.1f} ms, {cpu:.2f} s of CPU")
        assert cpu / len(times) < 0.0015, f"{cpu:.2f} s of CPU for {len(times)} answers"
        assert support.http_request(server.host, server.port, "GET", "/healthz")[0] == 200
    finally:
        origin.close()


class TricklingOrigin(support.LoopbackOrigin):
    """Four progressive JPEGs, each sent a few KB at a time for about 12 s: each a row downloading,
    its previews made as its scans arrive."""

    def __init__(self, jpeg: bytes):
        self.jpeg = jpeg
        super().__init__("trickling-origin")

    def serve(self, request):
        if request.path == "/photos.json":
            entries = {f"Trickle {n}": self.url(f"/p{n}.jpg") for n in range(4)}
            self.reply(request, json.dumps(entries).encode(), "application/json")
            return
        self.start_chunked(request, "image/jpeg")
        step = len(self.jpeg) // 120 + 1
        for at in range(0, len(self.jpeg), step):
            if self.stopped.wait(0.1):
                return
            self.chunk(request, self.jpeg[at:at + step])
        self.end_chunked(request)


def unread_growth(server_factory, jpeg: bytes, name: str, answers: int) -> int:
    """The server's peak resident memory over its size before `answers` stops of four rows still
    downloading, asking for their previews, whose answers are never read, while the rows' bytes
    trickle in until every row is filtered."""
    origin = TricklingOrigin(jpeg)
    sockets: list[socket.socket] = []
    try:
        server = server_factory.start(name, flags=["--source", origin.url("/photos.json")])
        viewer = new_viewer(server)
        # Its page's stream, open (a viewer that never opens one is let go after 10 s, its work cancelled)
        stream = support.connect(server.host, server.port)
        stream.sendall(f"GET /events?viewer={viewer} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
        sockets.append(stream)
        request = support.request_bytes("POST", "/api/viewport?thumbnails=0-3&previews=1",
                                        headers={"Content-Type": "application/json"}, body=stop_body(viewer, 0, 3))
        before = support.rss_bytes(server.pid)
        for _ in range(answers):
            sock = support.connect(server.host, server.port, rcvbuf=4096)
            sock.sendall(request)
            sockets.append(sock)
        # Until the trickle has ended and every row is filtered (the answers' frames all made)
        assert support.wait_until(lambda: all_in(server, "filtered", 3), 60), "the four rows were never filtered"
        assert support.http_request(server.host, server.port, "GET", "/healthz")[0] == 200
        growth = support.peak_rss_bytes(server.pid) - before
        # (each answer is the frames of a stop's thumbnails, not a report's 204)
        sockets[-1].settimeout(10)
        head = sockets[-1].recv(4096)
        assert head.startswith(b"HTTP/1.1 200") and b"application/octet-stream" in head, head[:300]
        return growth
    finally:
        for sock in sockets:
            sock.close()
        origin.close()


def test_answers_nobody_reads_hold_at_most_a_frame_a_row(server_factory):
    samples = server_factory.start("stop-unread-samples")
    samples.stop()
    jpeg = (server_factory.workdir / "samples" / "sample-photos-v2" / "photo-000.jpg").read_bytes()
    # Given one stop's answer left unread beside the rows' own work (their downloads, previews, filters)
    one = unread_growth(server_factory, jpeg, "stop-unread-one", 1)
    # When 40 more such answers are left unread
    many = unread_growth(server_factory, jpeg, "stop-unread-many", 41)
    # Then they held at most about a frame a row each (queued, every preview of the trickle: 0.6 MB each)
    print(f"peak growth: one unread answer {one / 1e6:.1f} MB, 41 unread {many / 1e6:.1f} MB")
    assert many - one < 8_000_000, f"40 unread answers held {(many - one) / 1e6:.1f} MB more"
