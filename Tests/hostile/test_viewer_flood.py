"""Attack 7: 100,000 `POST /api/viewers` from one client address. After the first few each gets
429 with `Retry-After` and `{"error": reason}`; the one address never fills `--max-viewers`; other
addresses are served meanwhile and after (page, viewer, stream, thumbnail).

On loopback every client is 127.0.0.1, so the server trusts 127.0.0.1 as its proxy
(`--trusted-proxy`) and each client's address is its `X-Forwarded-For`. A second test checks that
the header is not believed from a peer that is not the trusted proxy."""
from __future__ import annotations

import email.utils
import threading
import time
from collections import Counter

import pytest

import support

PER_MINUTE = 20
MAX_VIEWERS = 200
FLOOD_REQUESTS = 100_000
FLOOD_SECONDS = 20  # the flood stops at whichever bound comes first
ATTACKER = "198.51.100.7"
OTHERS = ["203.0.113.9", "203.0.113.10", "203.0.113.11"]


class Flood:
    """New viewers as fast as the server answers: `connections` keep-alive connections, each
    pipelining `batch` requests at a time; every `page_every`-th request is a page load (`GET /`,
    which makes a viewer too), the others `POST /api/viewers`. Counts the statuses of each kind and
    checks the 429s."""

    def __init__(self, server, total: int, seconds: float, headers_for, connections: int = 4, batch: int = 100,
                 page_every: int = 10):
        self.server = server
        self.total = total
        self.end = time.monotonic() + seconds
        self.headers_for = headers_for  # request number -> extra headers
        self.batch = batch
        self.page_every = page_every
        self.sent = 0
        self.statuses: Counter[int] = Counter()  # POST /api/viewers
        self.page_statuses: Counter[int] = Counter()  # GET /
        self.unanswered = 0
        self.bad_429: list[str] = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(connections)]

    def run(self) -> "Flood":
        self.started = time.monotonic()
        for thread in self.threads:
            thread.start()
        for thread in self.threads:
            thread.join(timeout=max(0.0, self.end - time.monotonic()) + 30)
        self.elapsed = time.monotonic() - self.started
        return self

    def _claim(self) -> range:
        with self.lock:
            if time.monotonic() >= self.end:
                return range(0)
            first = self.sent
            self.sent = min(self.total, self.sent + self.batch)
            return range(first, self.sent)

    def _run(self):
        sock = None
        while True:
            numbers = self._claim()
            if not numbers:
                break
            if sock is None:
                sock = support.connect(self.server.host, self.server.port, timeout=10)
            request = b"".join(self._request(n) for n in numbers)
            support.send_quietly(sock, request)
            buffer, responses = b"", []
            deadline = time.monotonic() + 15
            closed = False
            def enough(data: bytes) -> bool:
                return (data.count(b"HTTP/1.1 ") >= len(numbers)
                        and len(support.parse_responses(data)[0]) >= len(numbers))

            while len(responses) < len(numbers) and not closed and time.monotonic() < deadline:
                exchange = support.read_until_close(sock, deadline, enough=enough,
                                                    exchange=support.Exchange(data=buffer))
                buffer = exchange.data
                responses, _ = support.parse_responses(buffer)
                closed = exchange.closed or exchange.timed_out
            with self.lock:
                self.unanswered += len(numbers) - len(responses)
                for n, response in zip(numbers, responses):
                    (self.page_statuses if self._is_page(n) else self.statuses)[response.status] += 1
                    if response.status == 429 and len(self.bad_429) < 5:
                        problem = check_429(response)
                        if problem:
                            self.bad_429.append(problem)
            if closed or len(responses) < len(numbers) or "close" in (responses[-1].headers.get("connection", "") if responses else ""):
                sock.close()
                sock = None
        if sock is not None:
            sock.close()

    def _is_page(self, n: int) -> bool:
        return n % self.page_every == self.page_every - 1

    def _request(self, n: int) -> bytes:
        if self._is_page(n):
            return support.request_bytes("GET", "/", self.headers_for(n))
        return support.request_bytes("POST", "/api/viewers", dict(self.headers_for(n), **{"Content-Length": "0"}))

    def new_viewers(self) -> int:
        return self.statuses[201] + self.page_statuses[200]

    def describe(self) -> str:
        return (f"{self.sent} requests in {self.elapsed:.1f} s: POST /api/viewers {dict(sorted(self.statuses.items()))}, "
                f"GET / {dict(sorted(self.page_statuses.items()))}, {self.unanswered} unanswered")


def check_429(response: support.Response) -> str | None:
    retry_after = response.headers.get("retry-after")
    if retry_after is None:
        return "a 429 without Retry-After"
    if not retry_after.isdigit():  # delay-seconds, or else an HTTP-date
        try:
            email.utils.parsedate_to_datetime(retry_after)
        except (TypeError, ValueError):
            return f"a 429 with Retry-After {retry_after!r}"
    try:
        error = response.json().get("error")
    except ValueError:
        error = None
    if not isinstance(error, str):
        return f"a 429 without {{\"error\": reason}}: {response.body[:200]!r}"
    return None


def most_allowed(elapsed: float) -> int:
    """New viewers one address may get in `elapsed` s at PER_MINUTE a minute, generously: a full
    window's worth at the start and at a window's turn, plus the refill."""
    return 2 * PER_MINUTE + int(PER_MINUTE * elapsed / 60) + 1


def test_viewer_flood_from_one_address(start_server):
    server = start_server("viewer-flood", env={
        "CLASSIC_PHOTOS_TRUSTED_PROXY": "127.0.0.1",
        "CLASSIC_PHOTOS_VIEWERS_PER_MINUTE": str(PER_MINUTE),
    }, flags=["--max-viewers", str(MAX_VIEWERS)])
    flood = Flood(server, FLOOD_REQUESTS, FLOOD_SECONDS, lambda n: {"X-Forwarded-For": ATTACKER})
    during = support.NormalClientThread(server.host, server.port, {"X-Forwarded-For": OTHERS[0]}, deadline=60)
    flood_thread = threading.Thread(target=flood.run, daemon=True)
    flood_thread.start()
    time.sleep(1)  # the flood is under way
    during.start()
    during.join(timeout=90)
    flood_thread.join(timeout=FLOOD_SECONDS + 60)
    server.assert_alive()
    assert during.error is None, f"another address while the flood went on: {during.error}; flood: {flood.describe()}"

    assert flood.sent >= 1000, "the flood hardly started: " + flood.describe()
    allowed = most_allowed(flood.elapsed)
    assert 1 <= flood.new_viewers() <= allowed, (
        f"one address got {flood.new_viewers()} new viewers (at most {allowed} at {PER_MINUTE} a minute): " + flood.describe())
    assert flood.statuses[429] > 0 and flood.page_statuses[429] > 0, (
        "no 429 for POST /api/viewers or for GET / (a page load is a new viewer too): " + flood.describe())
    others = {status for status in flood.statuses if status not in (201, 429)}
    others |= {status for status in flood.page_statuses if status not in (200, 429)}
    assert not others, f"answers other than 201 / 200 / 429 (503: --max-viewers {MAX_VIEWERS} filled): " + flood.describe()
    assert not flood.bad_429, f"{flood.bad_429}; " + flood.describe()

    # Other addresses: served.
    status, _, body = support.http_request(server.host, server.port, "GET", "/", headers={"X-Forwarded-For": OTHERS[2]})
    assert status == 200, f"GET / from another address after the flood answered {status}: {body[:200]!r}"
    support.assert_normal_client_served(server.host, server.port, {"X-Forwarded-For": OTHERS[1]},
                                        when="another address after the flood")
    server.assert_alive()


def test_forwarded_for_is_not_believed_from_an_untrusted_peer(start_server):
    """No trusted proxy: a client that names a new `X-Forwarded-For` with every request is still
    one address, and is limited as one."""
    server = start_server("spoofed-forwarding", env={"CLASSIC_PHOTOS_VIEWERS_PER_MINUTE": str(PER_MINUTE)},
                          flags=["--max-viewers", str(MAX_VIEWERS)])
    flood = Flood(server, 10 * PER_MINUTE, 20,
                  lambda n: {"X-Forwarded-For": f"192.0.2.{n % 250 + 1}"}, connections=1, batch=PER_MINUTE).run()
    server.assert_alive()
    assert flood.new_viewers() <= most_allowed(flood.elapsed), (
        "new X-Forwarded-For values from an untrusted peer were believed: " + flood.describe())
    assert flood.statuses[429] > 0, "no 429: " + flood.describe()
