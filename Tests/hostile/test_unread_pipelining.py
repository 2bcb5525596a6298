"""Issue 57 item 1: a client that pipelines requests for a cached thumbnail (answered on the event
loop, not by the router) and never reads. The server stops reading that connection while it cannot
take more of the answers, as the router's path does: its resident memory stays within 50 MB of where
it was, the memory guard never fires, and another client is served promptly meanwhile; a connection
that pipelined the same way and reads at last gets every answer (reading went on). (Before the fix,
one such connection queued 827,600 answers in 15 s: 80 -> 410 MB on a release build.)"""
from __future__ import annotations

import socket
import statistics
import threading
import time

import pytest

import support

SECONDS = 10  # how long the pipelining goes on (well inside the server's 60 s send timeout)
RSS_GROWTH_BOUND = 50_000_000  # the bound for an unread pipelined connection
# Another client's requests meanwhile (a thumbnail and /healthz, each on a new connection): the
# median and the slowest, in seconds (the first may meet the server parsing the first reads' requests).
PROMPT_MEDIAN, PROMPT_MOST = 0.5, 5.0
GUARD_LINE = "cancelling work and emptying the image cache"
REQUEST = b"GET /photos/0/thumbnail HTTP/1.1\r\nHost: localhost\r\n\r\n"
BLOCK = REQUEST * 1_000  # whole requests, so that a send may stop anywhere and go on from there
# Requests the connection that reads at last sends: more than the server reads while it cannot
# answer, few enough to read all their answers back.
LATE_READER_REQUESTS = 5_000


@pytest.fixture(scope="module")
def server(server_factory):
    server = server_factory.start("unread-pipelining")
    support.assert_normal_client_served(server.host, server.port, when="setting up")  # row 0's thumbnail is cached
    yield server
    server.stop()


class Pipeliner(threading.Thread):
    """Sends pipelined requests on one connection as fast as the server takes them, reading none."""

    def __init__(self, server, until: float, most: int | None = None):
        super().__init__(daemon=True)
        self.most = (most or 1 << 40) * len(REQUEST)  # bytes
        self.sock = support.connect(server.host, server.port, rcvbuf=4096)
        self.until = until
        self.sent = 0
        self.error: str | None = None

    def run(self):
        offset = 0
        self.sock.settimeout(0.2)
        while time.monotonic() < self.until and self.sent < self.most:
            try:
                n = self.sock.send((BLOCK[offset:] or BLOCK)[:self.most - self.sent])
            except socket.timeout:
                continue  # the server reads nothing more: it still may later
            except OSError as error:
                self.error = repr(error)
                return
            self.sent += n
            offset = (offset + n) % len(BLOCK)
        time.sleep(max(0.0, self.until - time.monotonic()))  # all sent: the connection stays unread till then

    def read_answers(self, timeout: float) -> list[int]:
        """Reads the answers to every whole request sent (the reader reads at last): their statuses."""
        wanted = self.sent // len(REQUEST)
        statuses: list[int] = []
        data = bytearray()
        deadline = time.monotonic() + timeout
        while len(statuses) < wanted and time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(1 << 20)
            except socket.timeout:
                break
            if not chunk:
                break
            data += chunk
            while True:
                end = data.find(b"\r\n\r\n")
                if end < 0:
                    break
                head = bytes(data[:end]).decode("latin-1").split("\r\n")
                length = next((int(line.split(":", 1)[1]) for line in head[1:]
                               if line.lower().startswith("content-length:")), 0)
                if len(data) < end + 4 + length:
                    break
                statuses.append(int(head[0].split(" ")[1]))
                del data[:end + 4 + length]
        return statuses

    def close(self):
        self.sock.close()


def guard_fired(server) -> bool:
    log = server.stdout_path.read_text(errors="replace") + server.stderr_path.read_text(errors="replace")
    return GUARD_LINE in log


def timed_get(server, path: str) -> float:
    start = time.monotonic()
    status, _, body = support.http_request(server.host, server.port, "GET", path, timeout=30)
    assert status == 200, f"GET {path} answered {status}: {body[:200]!r}"
    return time.monotonic() - start


@pytest.mark.parametrize("connections", [1, 3])
def test_unread_pipelined_thumbnails_hold_memory_flat(server, connections):
    for _ in range(20):
        timed_get(server, "/photos/0/thumbnail")
    memory = support.PeakMemory(server, interval=0.05)
    until = time.monotonic() + SECONDS
    pipeliners = [Pipeliner(server, until) for _ in range(connections)]
    late_reader = Pipeliner(server, until, most=LATE_READER_REQUESTS)
    waits: list[float] = []
    try:
        for pipeliner in [*pipeliners, late_reader]:
            pipeliner.start()
        during = support.NormalClientThread(server.host, server.port, deadline=30)
        during.start()
        while any(p.is_alive() for p in pipeliners):
            waits += [timed_get(server, "/photos/0/thumbnail"), timed_get(server, "/healthz")]
            time.sleep(0.2)  # a request now and then, not a flood of our own
        during.join(timeout=60)
        rss_during = server.rss_bytes()
        late_reader.join(timeout=10)
        # The late reader reads at last: every request it sent is answered (the server read on again).
        answers = late_reader.read_answers(timeout=60)
        wanted = late_reader.sent // len(REQUEST)
    finally:
        memory.stop()
        for pipeliner in [*pipeliners, late_reader]:
            pipeliner.close()
    server.assert_alive()
    sent = sum(p.sent for p in pipeliners) // len(REQUEST)
    growth = memory.growth
    figures = (f"{connections} connection(s) pipelining {sent} requests in {SECONDS} s, reading none: resident "
               f"memory {memory.before / 1e6:.0f} MB before, peak {memory.peak / 1e6:.0f} MB, {rss_during / 1e6:.0f} MB "
               f"at the end; another client's requests: median {statistics.median(waits):.3f} s, slowest "
               f"{max(waits):.3f} s over {len(waits)} tries")
    print(figures)
    assert not guard_fired(server), f"{figures}: the memory guard fired"
    assert growth <= RSS_GROWTH_BOUND, f"{figures}: grew {growth / 1e6:.0f} MB (bound {RSS_GROWTH_BOUND / 1e6:.0f} MB)"
    assert during.error is None, f"{figures}: {during.error}"
    assert statistics.median(waits) <= PROMPT_MEDIAN and max(waits) <= PROMPT_MOST, f"{figures}: another client waited"
    # The connections, once closed, leave the server as it was: served at once.
    assert timed_get(server, "/photos/0/thumbnail") <= PROMPT_MOST
    assert answers == [200] * wanted, (f"{figures}; read at last, {len(answers)} of {wanted} requests answered, "
                                       f"statuses {sorted(set(answers))}")
