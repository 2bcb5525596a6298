"""Attack 1: hundreds of slowloris connections (request heads dripped a byte at a time) and slow
bodies. A normal client is served while they go on and after; with `--idle-timeout 2` the server
closes them (a connection that sends no complete request within the timeout is closed, however
steadily it drips), while an event stream that is open but quiet is not idle and stays."""
from __future__ import annotations

import errno
import select
import socket
import threading
import time

import pytest

import support

SLOW_HEADERS = 300
SLOW_BODIES = 50
DRIP_INTERVAL = 0.5  # seconds between bytes: well inside any idle timeout, so only a limit on
                     # the time to a complete request can close these
CLOSE_BOUND = 20  # seconds for the server to close them all with --idle-timeout 2 (ten times it: the failure bound)

HEADER_START = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: "
BODY_START = (b"POST /api/viewport HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
              b"Content-Length: 4000\r\n\r\n{")


class Drip:
    """Holds slow connections open from a thread: one byte on each every DRIP_INTERVAL s (header
    bytes, or JSON whitespace for the bodies). Notes when the server closes or resets each (an
    answer it sends first, such as a 408, is read and kept)."""

    def __init__(self, server, headers: int = SLOW_HEADERS, bodies: int = SLOW_BODIES):
        self.kind: dict[socket.socket, str] = {}
        self.closed_at: dict[str, list[float]] = {"header": [], "body": []}
        self.answers: list[bytes] = []
        self.started = time.monotonic()
        self.lock = threading.Lock()
        for kind, number, start in (("header", headers, HEADER_START), ("body", bodies, BODY_START)):
            for _ in range(number):
                sock = support.connect(server.host, server.port, timeout=10)
                sock.sendall(start)
                sock.setblocking(False)
                self.kind[sock] = kind
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _closed(self, sock: socket.socket):
        with self.lock:
            kind = self.kind.pop(sock)
            self.closed_at[kind].append(time.monotonic() - self.started)
        sock.close()

    def _run(self):
        next_drip = time.monotonic()
        while not self.stopping.is_set():
            with self.lock:
                socks = list(self.kind)
            if not socks:
                return
            timeout = max(0.0, next_drip - time.monotonic())
            # select() is limited to FD_SETSIZE; poll has no such limit.
            poller = select.poll()
            for sock in socks:
                poller.register(sock, select.POLLIN | select.POLLERR | select.POLLHUP)
            for fd, _ in poller.poll(timeout * 1000):
                sock = next((s for s in socks if s.fileno() == fd), None)
                if sock is None or sock not in self.kind:
                    continue
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    self.answers.append(data)
                else:
                    self._closed(sock)
            if time.monotonic() >= next_drip:
                next_drip += DRIP_INTERVAL
                with self.lock:
                    socks = list(self.kind.items())
                for sock, kind in socks:
                    try:
                        sock.send(b"a" if kind == "header" else b" ")
                    except BlockingIOError:
                        pass
                    except OSError as error:
                        if error.errno in (errno.EPIPE, errno.ECONNRESET):
                            self._closed(sock)

    def still_open(self, kind: str) -> int:
        with self.lock:
            return sum(1 for k in self.kind.values() if k == kind)

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=10)
        with self.lock:
            for sock in self.kind:
                sock.close()
            self.kind.clear()


def test_normal_client_served_beside_slow_clients(start_server):
    server = start_server("slowloris")
    drip = Drip(server)
    try:
        time.sleep(2 * DRIP_INTERVAL)  # every connection has dripped
        support.assert_normal_client_served(server.host, server.port, when=(
            f"while {SLOW_HEADERS} slowloris connections and {SLOW_BODIES} slow bodies drip"))
        support.assert_normal_client_served(server.host, server.port, when="again, while they drip")
    finally:
        drip.stop()
    server.assert_alive()
    support.assert_normal_client_served(server.host, server.port, when="after the slow clients left")


def _assert_idle_timeout_closes(start_server, kind: str) -> None:
    """Slow clients of `kind` ("header": slowloris, "body": slow bodies) under --idle-timeout 2 are
    all closed within the bound, and a normal client is served while they drip and after."""
    what, count = ("slowloris connections", SLOW_HEADERS) if kind == "header" else ("slow bodies", SLOW_BODIES)
    server = start_server("idle-timeout" if kind == "header" else "slow-bodies", env={"CLASSIC_PHOTOS_IDLE_TIMEOUT": "2"})
    drip = Drip(server, bodies=0) if kind == "header" else Drip(server, headers=0)
    try:
        support.assert_normal_client_served(server.host, server.port, when=f"while the {what} drip")
        support.wait_until(lambda: drip.still_open(kind) == 0, CLOSE_BOUND - (time.monotonic() - drip.started))
        still_open = drip.still_open(kind)
    finally:
        drip.stop()
    server.assert_alive()
    assert still_open == 0, (
        f"with --idle-timeout 2, {still_open} of {count} {what} were still open after {CLOSE_BOUND} s")
    support.assert_normal_client_served(server.host, server.port, when=f"after the {what} were closed")


def test_idle_timeout_closes_slowloris(start_server):
    """A connection that has not sent a complete request head within the idle timeout is closed,
    however steadily it drips."""
    _assert_idle_timeout_closes(start_server, "header")


def test_idle_timeout_closes_slow_bodies(start_server):
    """The issue: "a connection that sends no complete request in N seconds is closed". A body
    dripped a byte every half second never completes its request within the timeout, so it is
    closed (an answer first, such as 408, is allowed). (nginx's `client_body_timeout` is a timeout
    between two reads and would not close these.)"""
    _assert_idle_timeout_closes(start_server, "body")


def test_idle_timeout_spares_a_quiet_event_stream(start_server):
    """An event stream that has nothing to say for three idle timeouts is not idle: it stays open
    and still carries the events of a later viewport report."""
    server = start_server("quiet-stream", env={"CLASSIC_PHOTOS_IDLE_TIMEOUT": "2"})
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
    assert status == 201, body
    viewer = support.json.loads(body)["viewer"]
    sock = support.connect(server.host, server.port)
    try:
        sock.sendall(f"GET /events?viewer={viewer} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        quiet = support.read_until_close(sock, time.monotonic() + 6)
        assert not quiet.closed, f"the event stream was closed within 6 s (idle timeout 2 s): {quiet.data[-300:]!r}"
        assert b"event: source" in quiet.data, quiet.data[:300]
        status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewport", json_body(
            {"viewer": viewer, "scrolling": False, "first": 0, "last": 5}), {"Content-Type": "application/json"})
        assert status == 204, body
        later = support.read_until_close(sock, time.monotonic() + 30, enough=lambda data: b"event: photo" in data)
        assert b"event: photo" in later.data, (
            f"no photo event after the viewport report (stream {'closed' if later.closed else 'open'}): {later.data[-300:]!r}")
    finally:
        sock.close()


def json_body(value) -> bytes:
    return support.json.dumps(value).encode()
