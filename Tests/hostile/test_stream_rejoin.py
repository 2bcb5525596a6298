"""Issue 41, item 1: one viewer joined again and again to a shared stream whose client does not
read it. Each join starts a new carry of the viewer's events; the carry it supersedes must end, and
what it was waiting to hand the stream's writer must go with it (and what waits is counted in the
unsent-bytes budget). On main each superseded carry stayed parked with its item, never given back:
6,000 joins grew the server's resident memory by about 20 MB (3.3 KB a join); bounded, they grow it
by about 1 MB. The bound asserted is 1 KB a join, a third of main's growth and six times ours.
The stream is read back afterwards up to a marker viewer's snapshot, and a normal client is served.
"""
from __future__ import annotations

import http.client
import json
import socket
import time

import support

JOINS = 6000
RSS_GROWTH_BOUND = JOINS * 1_000  # bytes
RCVBUF = 4096
READ_SECONDS = 120  # failure bound on reading the stream back


class KeepAlive:
    """One keep-alive connection for many small requests."""

    def __init__(self, server):
        self.connection = http.client.HTTPConnection(server.host, server.port, timeout=30)

    def request(self, method: str, path: str, body=None) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        self.connection.request(method, path, body=data, headers=headers)
        response = self.connection.getresponse()
        return response.status, response.read()

    def close(self):
        self.connection.close()


class SharedStreamSocket:
    """`GET /events/shared` on a raw socket with a small receive buffer, read only when asked."""

    def __init__(self, server):
        self.sock = support.connect(server.host, server.port, timeout=30, rcvbuf=RCVBUF)
        self.sock.sendall(f"GET /events/shared HTTP/1.1\r\nHost: {server.host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.buffer = b""

    def events(self, deadline: float):
        """(name, data) of each event, read until `deadline` (chunk size lines are skipped)."""
        name, data = None, None
        while True:
            while b"\n" not in self.buffer:
                left = deadline - time.monotonic()
                assert left > 0, "the stream did not come back in time"
                self.sock.settimeout(left)
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\n", 1)
            text = line.decode(errors="replace").rstrip("\r")
            if text.startswith("event: "):
                name = text[7:]
            elif text.startswith("data: ") and name:
                data = text[6:]
            elif text == "" and name and data is not None:
                yield name, data
                name, data = None, None

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def test_rejoining_one_viewer_to_an_unread_shared_stream_keeps_one_carry(start_server):
    server = start_server("stream-rejoin")
    stream = SharedStreamSocket(server)
    client = KeepAlive(server)
    try:
        deadline = time.monotonic() + 30
        stream_id = next(json.loads(data)["stream"] for name, data in stream.events(deadline) if name == "stream")

        status, body = client.request("POST", "/api/viewers")
        assert status == 201, body
        viewer = json.loads(body)["viewer"]
        rss_before = server.rss_bytes()
        for _ in range(JOINS):
            status, body = client.request("POST", f"/api/streams/{stream_id}/viewers", {"viewer": viewer})
            assert status == 204, body
        rss_after = server.rss_bytes()

        # The viewer leaves, and a marker viewer joins behind whatever still waits to be written.
        status, body = client.request("DELETE", f"/api/streams/{stream_id}/viewers/{viewer}")
        assert status == 204, body
        status, body = client.request("POST", "/api/viewers")
        assert status == 201, body
        marker = json.loads(body)["viewer"]
        status, body = client.request("POST", f"/api/streams/{stream_id}/viewers", {"viewer": marker})
        assert status == 204, body

        snapshots = 0
        for name, data in stream.events(time.monotonic() + READ_SECONDS):
            if name != "snapshot":
                continue
            whose = json.loads(data).get("viewer")
            if whose == marker:
                break
            snapshots += whose == viewer
        else:
            raise AssertionError("the stream ended before the marker's snapshot")

        print(f"{JOINS} joins: {snapshots} snapshots of the rejoined viewer written, {len(data)} B the last; "
              f"RSS {rss_before / 1e6:.1f} -> {rss_after / 1e6:.1f} MB")
        assert rss_after - rss_before < RSS_GROWTH_BOUND, (
            f"{JOINS} joins grew resident memory by {(rss_after - rss_before) / 1e6:.1f} MB\n{server.describe()}")
        server.assert_alive()
        support.assert_normal_client_served(server.host, server.port, when="after the joins")
    finally:
        client.close()
        stream.close()
