"""Attack 4: ambiguous or broken message framing. Each request is answered 400 / 501 or its
connection closed, and nothing after it on the connection runs: every case ends with a complete,
valid `GET /healthz`, and no answer to it may arrive (it would be a request smuggled past whatever
read the framing differently). `/healthz` is the only request here that answers 200, so a 200 is
the smuggled request's answer.

Each case goes to two routes: `POST /api/viewers`, which answers 201 to a request it accepts (a 201
where a rejection is due says the server accepted the broken framing; this handler never reads a
body), and `POST /api/viewport`, which reads its body (a server that reads bodies lazily shows its
framing there). The cases run at once, each on a connection of its own, in a module fixture; the
tests report one case each."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import support

SMUGGLED = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
HEAD = b"POST /api/viewers HTTP/1.1\r\nHost: localhost\r\n"
ROUTES = {"viewers": b"/api/viewers", "viewport": b"/api/viewport"}
READ_TIMEOUT = 8
REJECTED = {400, 501}

# name -> (bytes sent before the smuggled request, statuses allowed for the first answer)
CASES = {
    # RFC 9112 6.1: Transfer-Encoding with Content-Length is a smuggling attempt; reject it.
    "content-length-with-transfer-encoding": (
        HEAD + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", REJECTED),
    "transfer-encoding-with-content-length": (
        HEAD + b"Transfer-Encoding: chunked\r\nContent-Length: " + str(len(SMUGGLED) + 5).encode()
        + b"\r\n\r\n0\r\n\r\n", REJECTED),
    # Two different lengths: one reader takes the smuggled request as the body, another as a request.
    "two-content-lengths": (
        HEAD + b"Content-Length: 0\r\nContent-Length: " + str(len(SMUGGLED)).encode() + b"\r\n\r\n", REJECTED),
    "content-length-plus-sign": (HEAD + b"Content-Length: +5\r\n\r\nhello", REJECTED),
    "content-length-negative": (HEAD + b"Content-Length: -5\r\n\r\nhello", REJECTED),
    "content-length-not-a-number": (HEAD + b"Content-Length: 5x\r\n\r\nhello", REJECTED),
    "content-length-list": (HEAD + b"Content-Length: 5, 5\r\n\r\nhello", REJECTED),
    "content-length-overflow": (HEAD + b"Content-Length: 18446744073709551621\r\n\r\nhello", REJECTED | {413}),
    "bad-chunk-size": (HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", REJECTED),
    "chunk-size-overflow": (
        HEAD + b"Transfer-Encoding: chunked\r\n\r\n10000000000000005\r\nhello\r\n0\r\n\r\n", REJECTED | {413}),
    "chunk-longer-than-its-size": (HEAD + b"Transfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n", REJECTED),
    # A coding the server cannot undo: 501 (RFC 9112 6.1).
    "transfer-encoding-gzip-chunked": (
        HEAD + b"Transfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", REJECTED),
    # chunked not last: the length cannot be known (RFC 9112 6.3).
    "transfer-encoding-chunked-then-gzip": (
        HEAD + b"Transfer-Encoding: chunked, gzip\r\n\r\n5\r\nhello\r\n0\r\n\r\n", REJECTED),
    "transfer-encoding-space-before-colon": (
        HEAD + b"Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", REJECTED),
}


@pytest.fixture(scope="module")
def server(server_factory):
    # A short idle timeout: a server that waits for more bytes closes soon (the reads below wait
    # up to READ_TIMEOUT s for the close).
    server = server_factory.start("framing", env={"CLASSIC_PHOTOS_IDLE_TIMEOUT": "3"})
    yield server
    server.stop()


def on_route(sent: bytes, route: str) -> bytes:
    return sent.replace(b"/api/viewers", ROUTES[route], 1)


@pytest.fixture(scope="module")
def exchanges(server):
    """Every case on both routes, sent at once: (case, route) -> Exchange."""
    keys = [(case, route) for case in CASES for route in ROUTES]
    with ThreadPoolExecutor(max_workers=len(keys)) as pool:
        futures = {key: pool.submit(support.raw_exchange, server.host, server.port,
                                    on_route(CASES[key[0]][0], key[1]) + SMUGGLED, READ_TIMEOUT)
                   for key in keys}
        return {key: future.result() for key, future in futures.items()}


def test_pipelined_requests_are_answered(server):
    """The control: a valid request followed by the same `GET /healthz` gets both answers, so the
    smuggling checks below would see a smuggled answer."""
    exchange = support.raw_exchange(
        server.host, server.port, HEAD + b"Content-Length: 0\r\n\r\n" + SMUGGLED,
        timeout=10, enough=lambda data: data.count(b"HTTP/1.1 ") >= 2 and data.endswith(b"}"))
    statuses = [r.status for r in exchange.responses]
    assert statuses == [201, 200], exchange.describe()


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("case", list(CASES))
def test_broken_framing_is_rejected_and_nothing_is_smuggled(server, exchanges, case, route):
    _, allowed = CASES[case]
    exchange = exchanges[(case, route)]
    case = f"{case} on {ROUTES[route].decode()}"
    statuses = [r.status for r in exchange.responses]
    assert 200 not in statuses, f"{case}: the request after the broken one was answered (smuggled): " + exchange.describe()
    if exchange.responses:
        assert statuses[0] in allowed, f"{case}: answered {statuses[0]}, wanted one of {sorted(allowed)}: " + exchange.describe()
        assert len(statuses) == 1, f"{case}: more than one answer: " + exchange.describe()
    assert exchange.closed, f"{case}: the connection was not closed within {READ_TIMEOUT} s: " + exchange.describe()
    server.assert_alive()


def test_body_longer_than_declared(server):
    """The bytes past the declared length are the next request: here garbage, which must be
    rejected (400) and end the connection before the `GET /healthz` behind it."""
    sent = HEAD + b"Content-Length: 2\r\n\r\n{}" + b'"scrolling":false}'
    exchange = support.raw_exchange(server.host, server.port, sent + SMUGGLED, timeout=READ_TIMEOUT)
    statuses = [r.status for r in exchange.responses]
    assert 200 not in statuses, "the request after the garbage was answered (smuggled): " + exchange.describe()
    assert statuses[:1] == [201], "the request of the declared length was not answered: " + exchange.describe()
    assert statuses[1:] in ([], [400]), exchange.describe()
    assert exchange.closed, f"the connection was not closed within {READ_TIMEOUT} s: " + exchange.describe()


def test_normal_client_served_after_broken_framing(server):
    support.assert_normal_client_served(server.host, server.port, when="after the framing attacks")
    server.assert_alive()
