"""Attack 8: thousands of event streams whose readers never read (a small receive buffer, never
drained), while their viewers' rows keep changing. The server's resident memory stays bounded (each
stream's backlog is bounded; a reader too far behind is dropped), and a normal client is served
meanwhile and after."""
from __future__ import annotations

import http.client
import json
import socket
import time

import support

STREAMS = 2000
RCVBUF = 4096
OPEN_SECONDS = 90  # bound on opening them
DRIVE_SECONDS = 20  # events are made for the streams this long (about 400 per stream on the
                    # FlyingFox server, where each unread stream grew by about 500 bytes a second)
# Bound on the growth of resident memory from before the streams to its peak: 100 KB a stream,
# its viewer included (the target for a viewer that reads is 20 KB; a stream that is not
# read may also fill a write buffer, such as NIO's 64 KiB high-water mark).
RSS_GROWTH_BOUND = STREAMS * 100_000


class KeepAlive:
    """One keep-alive connection for many small requests."""

    def __init__(self, server):
        self.server = server
        self.connection = http.client.HTTPConnection(server.host, server.port, timeout=30)

    def request(self, method: str, path: str, body=None) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        for attempt in range(2):
            try:
                self.connection.request(method, path, body=data, headers=headers)
                response = self.connection.getresponse()
                return response.status, response.read()
            except (OSError, http.client.HTTPException):
                self.connection.close()  # the server may close a keep-alive connection: once more
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self):
        self.connection.close()


def wait_all_worked(server, timeout: float = 120) -> int:
    """Puts every row on screen once and waits until each is filtered or failed, so that the
    memory measured later is not the image cache filling. Returns a failed row (the sample origin
    has a mis-named photo in every 43: a retry of it makes events)."""
    client = KeepAlive(server)
    try:
        status, body = client.request("POST", "/api/viewers")
        assert status == 201, body
        viewer = json.loads(body)["viewer"]
        stream = support.EventStream(server.host, server.port, viewer)
        status, body = client.request("POST", "/api/viewport", {"viewer": viewer, "scrolling": False,
                                                                "first": 0, "last": server.photo_count - 1})
        assert status == 204, body

        photos = []

        def done() -> bool:
            _, body = client.request("GET", "/api/photos")
            photos[:] = json.loads(body)["photos"]
            return all(p["state"] in ("filtered", "failed") for p in photos)

        assert support.wait_until(done, timeout, interval=0.25), "the rows were not all worked on"
        stream.close()
        failed = [p["index"] for p in photos if p["state"] == "failed"]
        assert failed, "no row of the sample failed"
        return failed[0]
    finally:
        client.close()


def test_event_streams_that_never_read(start_server):
    server = start_server("unread-streams")
    failing_row = wait_all_worked(server)
    support.assert_normal_client_served(server.host, server.port, when="before the streams")
    memory = support.PeakMemory(server)
    client = KeepAlive(server)
    socks: list[socket.socket] = []
    viewers: list[str] = []
    try:
        end = time.monotonic() + OPEN_SECONDS
        while len(socks) < STREAMS and time.monotonic() < end:
            status, body = client.request("POST", "/api/viewers")
            assert status == 201, f"viewer {len(viewers)}: POST /api/viewers answered {status}: {body[:200]!r}"
            viewer = json.loads(body)["viewer"]
            sock = support.connect(server.host, server.port, rcvbuf=RCVBUF)
            sock.sendall(f"GET /events?viewer={viewer} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
            socks.append(sock)
            viewers.append(viewer)
        assert len(socks) == STREAMS, f"only {len(socks)} streams opened in {OPEN_SECONDS} s"
        rss_open = server.rss_bytes()
        # Every viewer has the failing row on screen; each retry of it is worked on again for all
        # of them (photo, queues, operation and stats events for streams nobody reads).
        for viewer in viewers:
            status, body = client.request("POST", "/api/viewport", {
                "viewer": viewer, "scrolling": False, "first": max(0, failing_row - 2), "last": max(0, failing_row - 2) + 5})
            assert status == 204, f"POST /api/viewport answered {status}: {body[:200]!r}"
        rss_reported = server.rss_bytes()
        during = support.NormalClientThread(server.host, server.port, deadline=60)
        during.start()
        retries = 0
        end = time.monotonic() + DRIVE_SECONDS
        while time.monotonic() < end:
            status, _ = client.request("POST", f"/api/photos/{failing_row}/retry")
            retries += status == 202
            if status != 202:
                time.sleep(0.05)  # still being worked on (409): asks again shortly
        during.join(timeout=90)
        server.assert_alive()
        rss_during = server.rss_bytes()
        assert during.error is None, f"while {STREAMS} streams were not read: {during.error}"
    finally:
        client.close()
        memory.stop()
        for sock in socks:
            sock.close()
    growth = memory.growth
    figures = (f"resident memory {memory.before / 1e6:.0f} MB before the streams, {rss_open / 1e6:.0f} MB with "
               f"{STREAMS} unread streams open, {rss_reported / 1e6:.0f} MB after their viewport reports, "
               f"{rss_during / 1e6:.0f} MB after {retries} retries in {DRIVE_SECONDS} s (peak {memory.peak / 1e6:.0f} MB)")
    print(figures)
    assert growth <= RSS_GROWTH_BOUND, f"{figures}: grew {growth / 1e6:.0f} MB (bound {RSS_GROWTH_BOUND / 1e6:.0f} MB)"
    server.assert_alive()
    support.assert_normal_client_served(server.host, server.port, when="after the unread streams closed")
