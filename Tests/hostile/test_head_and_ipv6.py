"""`HEAD` answers headers only (9), and `--host ::` serves on [::1] (10)."""
from __future__ import annotations

import pytest

import support


@pytest.fixture(scope="module")
def server(server_factory):
    server = server_factory.start("head")
    yield server
    server.stop()


@pytest.mark.parametrize("path", ["/", "/static/app.css"])
def test_head_answers_headers_only(server, path):
    if path == "/":
        support.settle_first_screen(server.host, server.port)
    get = support.raw_exchange(server.host, server.port, support.request_bytes("GET", path, {"Connection": "close"}))
    assert len(get.responses) == 1 and get.responses[0].status == 200, get.describe()
    get_headers = get.responses[0].headers
    # HEAD, then a second request on the same connection: the bytes after HEAD's head must be the
    # second response's status line, not a body.
    request = (support.request_bytes("HEAD", path)
               + support.request_bytes("GET", "/healthz", {"Connection": "close"}))
    head = support.raw_exchange(server.host, server.port, request, head_only=[True, False])
    assert b"\r\n\r\n" in head.data, f"HEAD {path}: no answer; " + head.describe()
    end = head.data.index(b"\r\n\r\n") + 4
    assert head.data.startswith(b"HTTP/1.1 200"), f"HEAD {path} answered {head.data[:end]!r}"
    after = head.data[end:]
    assert after.startswith(b"HTTP/1.1 200"), (
        f"HEAD {path} sent {after.find(b'HTTP/1.1') if b'HTTP/1.1' in after else len(after)} body bytes "
        f"after its headers: {after[:120]!r}")
    assert len(head.responses) == 2 and b'"ready"' in head.responses[1].body, head.describe()
    head_headers = head.responses[0].headers
    assert head_headers.get("content-length") == get_headers.get("content-length"), (
        f"HEAD {path} Content-Length {head_headers.get('content-length')!r}, "
        f"GET {get_headers.get('content-length')!r}")
    assert head_headers.get("content-type") == get_headers.get("content-type")


def test_ipv6_host_serves_on_ipv6_loopback(server_factory):
    server = server_factory.start("ipv6", host="::", connect_host="::1")
    try:
        status, _, body = support.http_request("::1", server.port, "GET", "/healthz")
        assert status == 200, body
        support.assert_normal_client_served("::1", server.port, when="over [::1]")
    finally:
        server.stop()
