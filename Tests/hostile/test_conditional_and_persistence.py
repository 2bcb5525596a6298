"""Issue 57 item 7, on every path that answers (the event loop's ready answers: a cached thumbnail,
the photo list, the page; and the router's): `If-None-Match` read as RFC 9110 says (weak comparison,
a list over one line or several, `*`) gets 304; a request with `Connection: close` is answered with
`Connection: close` and is the connection's last; HTTP/1.0 without keep-alive is closed after its
answer, and HTTP/1.0 with `Connection: keep-alive` is kept (and told so); an answer to HTTP/1.0 is
never chunked."""
from __future__ import annotations

import json
import socket
import time

import pytest

import support

# Paths answered on the event loop when their answer is made (row 0's thumbnail once cached, the
# photo list, the page once its first screen is kept), and one only the router answers.
PATHS = {
    "cached thumbnail": "/photos/0/thumbnail",
    "photo list": "/api/photos",
    "page": "/",
    "router": "/healthz",
}
# Paths with an entity tag: the two ready ones and one of the router's (a static file).
TAGGED = {
    "cached thumbnail": "/photos/0/thumbnail",
    "photo list": "/api/photos",
    "router": "/static/app.css",
}
# Well inside the server's idle timeout (30 s): a connection closed sooner was closed for its request.
CLOSE_BOUND = 10


@pytest.fixture(scope="module")
def server(server_factory):
    server = server_factory.start("conditional-persistence")
    support.assert_normal_client_served(server.host, server.port, when="setting up")  # thumbnail 0 cached
    support.settle_first_screen(server.host, server.port)  # the page's first screen kept
    yield server
    server.stop()


def raw(method: str, path: str, version: str = "HTTP/1.1", lines: list[str] | None = None) -> bytes:
    return "\r\n".join([f"{method} {path} {version}", "Host: localhost", *(lines or []), "", ""]).encode("latin-1")


def exchange(server, data: bytes, wanted: int) -> support.Exchange:
    """Sends `data` on a connection of its own and reads until the server closes it, `CLOSE_BOUND`
    passes, or more than `wanted` responses came."""
    result = support.raw_exchange(server.host, server.port, data, timeout=CLOSE_BOUND,
                                  enough=lambda got: len(support.parse_responses(got)[0]) > wanted)
    return result


def tag_of(server, path: str) -> str:
    status, headers, _ = support.http_request(server.host, server.port, "GET", path)
    assert status == 200 and headers.get("etag"), (path, status, headers)
    return headers["etag"]


@pytest.mark.parametrize("name", list(TAGGED))
def test_if_none_match_is_read_as_rfc_9110_says(server, name):
    path = TAGGED[name]
    tag = tag_of(server, path)
    assert not tag.startswith("W/"), tag
    cases = {
        "the tag": [f"If-None-Match: {tag}"],
        "its weak form": [f"If-None-Match: W/{tag}"],
        "a list with it": [f'If-None-Match: "other", W/"x,y", {tag}'],
        "a list over two lines": ['If-None-Match: "other"', f"If-None-Match: W/{tag}"],
        "a star": ["If-None-Match: *"],
    }
    wrong = {}
    for case, lines in cases.items():
        result = exchange(server, raw("GET", path, lines=lines + ["Connection: close"]), 1)
        if [r.status for r in result.responses] != [304]:
            wrong[case] = result.describe()
    others = exchange(server, raw("GET", path, lines=['If-None-Match: "other", W/"another"', "Connection: close"]), 1)
    assert [r.status for r in others.responses] == [200], f"{name}: other tags: " + others.describe()
    assert not wrong, f"{name} ({path}, ETag {tag}): not 304 for {wrong}"


@pytest.mark.parametrize("value", ["close", "Close", "keep-alive, close"])
@pytest.mark.parametrize("name", list(PATHS))
def test_connection_close_is_said_and_is_the_last_answer(server, name, value):
    path = PATHS[name]
    # A second request behind it must not be answered: the first was the connection's last.
    result = exchange(server, raw("GET", path, lines=[f"Connection: {value}"]) + raw("GET", path), 1)
    statuses = [r.status for r in result.responses]
    assert statuses == [200], f"{name} with Connection: {value}: " + result.describe()
    assert result.responses[0].headers.get("connection", "").lower() == "close", (
        f"{name} with Connection: {value}: answered without Connection: close: {result.responses[0].raw_head!r}")
    assert result.closed, f"{name} with Connection: {value}: not closed within {CLOSE_BOUND} s: " + result.describe()


@pytest.mark.parametrize("name", list(PATHS))
def test_http_1_0_without_keep_alive_is_closed_after_its_answer(server, name):
    path = PATHS[name]
    result = exchange(server, raw("GET", path, version="HTTP/1.0"), 1)
    assert [r.status for r in result.responses] == [200], f"{name}: " + result.describe()
    assert result.closed, f"{name}: HTTP/1.0 not closed within {CLOSE_BOUND} s: " + result.describe()
    assert result.responses[0].headers.get("connection", "").lower() == "close", result.responses[0].raw_head


@pytest.mark.parametrize("name", list(PATHS))
def test_http_1_0_with_keep_alive_is_kept(server, name):
    path = PATHS[name]
    sock = support.connect(server.host, server.port, timeout=CLOSE_BOUND)
    try:
        for turn in range(2):  # the second request on the same connection, after the first answer
            sock.sendall(raw("GET", path, version="HTTP/1.0", lines=["Connection: keep-alive"]))
            got = support.read_until_close(sock, time.monotonic() + CLOSE_BOUND,
                                           enough=lambda data: bool(support.parse_responses(data)[0]))
            responses, rest = support.parse_responses(got.data)
            assert [r.status for r in responses] == [200] and not rest, f"{name}, request {turn + 1}: {got.data[:300]!r}"
            assert responses[0].headers.get("connection", "").lower() == "keep-alive", (
                f"{name}, request {turn + 1}: {responses[0].raw_head!r}")
    finally:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()


def test_http_1_0_gets_no_chunked_answer(server):
    """An answer of unknown length (an event stream) to HTTP/1.0 is an HTTP/1.0 answer, not chunked
    (RFC 9112 §6.1: HTTP/1.0 has no chunked coding), and its end is the connection's."""
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
    assert status == 201, body
    viewer = json.loads(body)["viewer"]
    for lines in ([], ["Connection: keep-alive"]):
        result = support.raw_exchange(server.host, server.port, raw("GET", f"/events?viewer={viewer}", "HTTP/1.0", lines),
                                      timeout=CLOSE_BOUND, enough=lambda data: b"\r\n\r\n" in data)
        head = result.data.split(b"\r\n\r\n")[0].decode("latin-1")
        fields = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip()
                  for line in head.split("\r\n")[1:] if ":" in line}
        assert head.startswith("HTTP/1.0 200"), f"{lines}: {head!r}"
        assert "chunked" not in fields.get("transfer-encoding", ""), f"{lines}: {head!r}"
        assert fields.get("connection", "").lower() == "close", f"{lines}: {head!r}"
