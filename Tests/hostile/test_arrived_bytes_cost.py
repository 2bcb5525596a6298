"""Arrived bytes passed without copying the whole (issue 41, item 7). The audit: the transfer thread
copied the whole body received so far at every progress report it showed a preview of, so four 48 MB
chunked bodies on screen cost 13.2 s of server CPU (2.9 s off screen) and 515 MB at the peak.

Two servers, one run: each lists the same four large chunked bodies (a progressive JPEG's scans, then
zeros, no end marker: a preview keeps wanting more) from an origin that holds every body's last chunk
behind a gate. Off screen (eager, the viewer looking elsewhere) is the baseline; on screen (visible,
the four rows looked at) previews are made of the bytes as they arrive. The server's CPU from the
first body byte until all four are held, and its peak resident memory over its size at the start,
on screen may be a little more than off screen (the previews' decodes), not a multiple."""
from __future__ import annotations

import json
import threading

import pytest

import support

BODIES = 4
BODY_BYTES = 32 * 1024 * 1024
CHUNK = 256 * 1024
BOUND = 180  # seconds: only the failure bound


@pytest.fixture(scope="module")
def open_ended_jpeg(server_factory) -> bytes:
    """photo-000 (a progressive sample JPEG) without its end marker."""
    server = server_factory.start("arrived-cost-samples")
    server.stop()
    jpeg = (server_factory.workdir / "samples" / "sample-photos-v2" / "photo-000.jpg").read_bytes()
    assert jpeg[-2:] == b"\xff\xd9"
    return jpeg[:-2]


class HeldOrigin(support.LoopbackOrigin):
    """`/photos.json`: four big entries, then four small whole photos; each big body is the JPEG
    and zeros up to `BODY_BYTES`, chunked, its last chunk held until `gate` is set. Notes the
    server's CPU time at the first big body's request and when all four are held."""

    def __init__(self, jpeg: bytes, whole: bytes):
        self.jpeg, self.whole = jpeg, whole
        self.server_pid: int | None = None
        self.gate = threading.Event()
        self.all_held = threading.Event()
        self.cpu_at_start: float | None = None
        self.rss_at_start: int | None = None
        self.cpu_when_held: float | None = None
        self.peak_when_held: int | None = None
        self.held = 0
        self.lock = threading.Lock()
        super().__init__("held-origin")

    def serve(self, request):
        if request.path == "/photos.json":
            entries = {f"A big {n}": self.url(f"/big{n}.jpg") for n in range(BODIES)}
            entries |= {f"B small {n}": self.url(f"/small{n}.jpg") for n in range(BODIES)}
            self.reply(request, json.dumps(entries).encode(), "application/json")
            return
        if request.path.startswith("/small"):
            self.reply(request, self.whole, "image/jpeg")
            return
        with self.lock:
            if self.cpu_at_start is None and self.server_pid is not None:
                self.cpu_at_start = support.cpu_seconds(self.server_pid)
                self.rss_at_start = support.rss_bytes(self.server_pid)
        self.start_chunked(request, "image/jpeg")
        self.chunk(request, self.jpeg)
        padding = bytes(CHUNK)
        for _ in range((BODY_BYTES - len(self.jpeg)) // CHUNK):
            self.chunk(request, padding)
        with self.lock:
            self.held += 1
            if self.held == BODIES and self.server_pid is not None:
                self.cpu_when_held = support.cpu_seconds(self.server_pid)
                self.peak_when_held = support.peak_rss_bytes(self.server_pid)
                self.all_held.set()
        self.gate.wait(BOUND)
        self.end_chunked(request)

    def close(self):
        self.gate.set()
        super().close()


class Looking:
    """A viewer looking at rows first...last, its stream read on a thread of its own until closed."""

    def __init__(self, server, first: int, last: int):
        status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
        assert status == 201, body
        viewer = json.loads(body)["viewer"]
        self.stream = support.EventStream(server.host, server.port, viewer, timeout=BOUND)
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()
        report = json.dumps({"viewer": viewer, "scrolling": False, "first": first, "last": last}).encode()
        status, _, answer = support.http_request(server.host, server.port, "POST", "/api/viewport", report,
                                                 {"Content-Type": "application/json"})
        assert status == 204, answer

    def read(self):
        try:
            while not self.closed.is_set() and self.stream.next_event() is not None:
                pass
        except (OSError, ValueError, AttributeError):
            pass  # closed under the reader: http.client drops its file

    def close(self):
        self.closed.set()
        self.stream.close()
        self.thread.join(10)


def cost(server_factory, jpeg: bytes, whole: bytes, name: str, strategy: str, first: int, last: int):
    """The server's CPU seconds and peak memory growth (bytes) while the four bodies arrive."""
    origin = HeldOrigin(jpeg, whole)
    looking = None
    try:
        server = server_factory.start(name, flags=["--source", origin.url("/photos.json"), "--strategy", strategy])
        origin.server_pid = server.pid
        looking = Looking(server, first, last)
        assert origin.all_held.wait(BOUND), f"{origin.held} of {BODIES} bodies arrived; {server.describe()}"
        return origin.cpu_when_held - origin.cpu_at_start, origin.peak_when_held - origin.rss_at_start
    finally:
        if looking is not None:
            looking.close()
        origin.close()


def test_large_chunked_bodies_on_screen_cost_about_what_they_cost_off_screen(server_factory, open_ended_jpeg):
    whole = open_ended_jpeg + b"\xff\xd9"
    # Off screen: eager downloads the big rows while the viewer looks at the small ones
    off_cpu, off_peak = cost(server_factory, open_ended_jpeg, whole, "arrived-cost-off", "eager", BODIES, 2 * BODIES - 1)
    # On screen: the big rows are looked at, so their arrived bytes are previewed
    on_cpu, on_peak = cost(server_factory, open_ended_jpeg, whole, "arrived-cost-on", "visible", 0, BODIES - 1)
    mib = 1024 * 1024
    print(f"{BODIES} x {BODY_BYTES // mib} MiB chunked: server CPU off screen {off_cpu:.2f} s, on screen {on_cpu:.2f} s; "
          f"peak memory growth off screen {off_peak / mib:.0f} MiB, on screen {on_peak / mib:.0f} MiB")
    assert on_cpu <= 2 * off_cpu + 1.0, f"on screen {on_cpu:.2f} s of CPU, off screen {off_cpu:.2f} s"
    assert on_peak <= 1.5 * off_peak + 64 * mib, f"peak growth on screen {on_peak / mib:.0f} MiB, off {off_peak / mib:.0f} MiB"
