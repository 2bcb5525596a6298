"""The HTTP/1.1 path's limits, over HTTP/2 on the bare server: streams per connection, the header
list size and URL length, a reader that never opens its window (the send timeout), idle
connections and streams (the idle timeout, the TLS handshake included), connections per client
and new viewers per client. Each with the HTTP/2 normal client served after."""
from __future__ import annotations

import json
import time

import pytest

import support
from h2client import ENHANCE_YOUR_CALM, HEADERS, H2Client, RawH2, frame
from h2normal import H2NormalClient
from test_http2_floods import REQUEST_FIELDS, hpack_int
from tls_support import start_https, tls_connect, trusting_nothing

BOUND = 20  # seconds: only the failure bound
REFUSED_STREAM = 0x7


def test_streams_past_the_limit_are_refused(start_server, test_ca):
    """`--max-streams 10`, advertised in SETTINGS; 30 requests whose bodies never come: 20 refused."""
    server = start_https(start_server, test_ca, "h2-streams", flags=["--max-streams", "10"])
    client = H2Client(server.host, server.port)
    assert client.wait(lambda: 3 in client.remote_settings, BOUND)
    assert client.remote_settings[3] == 10, f"SETTINGS_MAX_CONCURRENT_STREAMS {client.remote_settings}"
    client.close()
    raw = RawH2(server.host, server.port)
    post = b"\x83\x87" + b"\x44" + hpack_int(13, 7, 0) + b"/api/viewport"
    raw.send(b"".join(frame(HEADERS, 0x4, stream, post) for stream in range(1, 61, 2)))
    support.wait_until(lambda: (raw.read(0.2), len(raw.resets) >= 20 or raw.closed)[1], BOUND)
    refused = [stream for stream, code in raw.resets if code == REFUSED_STREAM]
    assert len(refused) >= 20 or raw.goaway is not None, f"resets {raw.resets}, GOAWAY {raw.goaway}"
    raw.close()
    H2NormalClient(server.host, server.port).check()


def test_header_list_and_url_limits(start_server, test_ca):
    """`MAX_HEADER_BYTES=4096`: the list may hold the head and the URL (4096 + 8192); a 2,000-byte
    field is served, 14,000 bytes are refused (stream reset or GOAWAY, never answered); a 9,000-byte
    path gets 414 and a 20,000-byte body 413, with the reason."""
    server = start_https(start_server, test_ca, "h2-headers", env={"CLASSIC_PHOTOS_MAX_HEADER_BYTES": "4096"})
    client = H2Client(server.host, server.port)
    served = client.fetch("GET", "/healthz", headers=[("x-filler", "a" * 2_000)])
    assert served.status == 200
    refused = client.fetch("GET", "/healthz", headers=[("x-filler", "a" * 14_000)], timeout=BOUND)
    assert refused.status is None and (refused.reset is not None or client.goaway is not None or client.closed), \
        f"a 14,000-byte header was answered {refused.status}"
    client.close()
    client = H2Client(server.host, server.port)
    long_path = client.fetch("GET", "/healthz?" + "q" * 9_000)
    assert long_path.status == 414 and "error" in json.loads(long_path.body), long_path
    big_body = client.fetch("POST", "/api/viewport", headers=[("content-type", "application/json")], body=b" " * 20_000)
    assert big_body.status == 413 and "error" in json.loads(big_body.body), big_body
    client.close()
    H2NormalClient(server.host, server.port).check()


def test_reader_that_never_opens_its_window_is_cut_off(start_server, test_ca):
    """`SEND_TIMEOUT=2`: a client whose streams' windows are 0 asks for the page and a photo;
    each stream is reset within the bound instead of being held for ever."""
    server = start_https(start_server, test_ca, "h2-window", env={"CLASSIC_PHOTOS_SEND_TIMEOUT": "2"})
    H2NormalClient(server.host, server.port).check()  # the photos are made
    client = H2Client(server.host, server.port, settings={4: 0})  # SETTINGS_INITIAL_WINDOW_SIZE
    streams = [client.request("GET", "/"), client.request("GET", "/photos/0/original")]
    started = time.monotonic()
    client.wait(lambda: all(client.finished(stream) for stream in streams) or client.closed, BOUND)
    ends = [(client.streams[s].status, client.streams[s].reset) for s in streams]
    assert all(client.streams[s].reset is not None for s in streams) or client.closed, \
        f"streams not cut off within {BOUND} s: {ends}"
    assert time.monotonic() - started >= 1.5, "cut off before the send timeout"
    client.close()
    H2NormalClient(server.host, server.port).check()


def test_idle_connections_and_streams_are_closed(start_server, test_ca):
    """`IDLE_TIMEOUT=2`: a TCP connection that never starts TLS, an HTTP/2 connection that opens no
    stream, and a stream whose request body never ends are all closed; an open event stream is not
    idle (held for three timeouts, still live)."""
    server = start_https(start_server, test_ca, "h2-idle", env={"CLASSIC_PHOTOS_IDLE_TIMEOUT": "2"})
    silent = support.connect(server.host, server.port, timeout=BOUND)
    no_stream = RawH2(server.host, server.port)
    body_never_ends = H2Client(server.host, server.port)
    pending = body_never_ends.request("POST", "/api/viewport", [("content-type", "application/json")], b"{", end=False)
    viewer_client = H2Client(server.host, server.port)
    viewer = json.loads(viewer_client.fetch("POST", "/api/viewers").body)["viewer"]
    events = viewer_client.request("GET", f"/events?viewer={viewer}")

    assert silent.recv(1) == b"", "a connection that never started TLS was not closed"
    assert no_stream.wait_ended(BOUND), "an HTTP/2 connection with no stream was not closed"
    body_never_ends.wait(lambda: body_never_ends.finished(pending) or body_never_ends.closed, BOUND)
    assert body_never_ends.streams[pending].reset is not None or body_never_ends.closed or \
        body_never_ends.streams[pending].status is not None, "a request whose body never ends was kept"
    # The event stream outlived all three; it is still open and the connection still answers.
    viewer_client.wait(lambda: viewer_client.finished(events), 6)
    assert not viewer_client.finished(events) and not viewer_client.closed, "the event stream was cut as idle"
    assert viewer_client.fetch("GET", "/healthz").status == 200
    for held in (silent, no_stream, body_never_ends, viewer_client):
        held.close()
    H2NormalClient(server.host, server.port).check()


def test_connections_per_client(start_server, test_ca):
    """`CONNECTIONS_PER_CLIENT=4`: 127.0.0.2 holds four connections; its fifth gets GOAWAY
    ENHANCE_YOUR_CALM with the reason over HTTP/2 and 429 over HTTP/1.1; 127.0.0.1 is served."""
    server = start_https(start_server, test_ca, "h2-per-client", env={"CLASSIC_PHOTOS_CONNECTIONS_PER_CLIENT": "4"})
    held = [H2Client(server.host, server.port, source="127.0.0.2") for _ in range(4)]
    for client in held:
        assert client.fetch("GET", "/healthz").status == 200
    fifth = H2Client(server.host, server.port, source="127.0.0.2")
    assert fifth.wait(lambda: fifth.goaway is not None, BOUND), "the fifth connection was not refused"
    assert fifth.goaway[0] == ENHANCE_YOUR_CALM and b"too many connections" in fifth.goaway[1], fifth.goaway
    fifth.close()
    over_http1 = tls_connect(server.host, server.port, trusting_nothing(["http/1.1"]), source="127.0.0.2")
    over_http1.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = support.read_until_close(over_http1, time.monotonic() + BOUND).data
    assert answer.startswith(b"HTTP/1.1 429"), answer[:200]
    H2NormalClient(server.host, server.port).check()
    for client in held:
        client.close()
    support.wait_until(lambda: _served_from(server, "127.0.0.2"), BOUND)
    assert _served_from(server, "127.0.0.2"), "127.0.0.2 was not served again once its connections closed"


def _served_from(server, source: str) -> bool:
    client = H2Client(server.host, server.port, source=source)
    try:
        return client.fetch("GET", "/healthz", timeout=5).status == 200
    finally:
        client.close()


def test_new_viewers_per_client(start_server, test_ca):
    """`VIEWERS_PER_MINUTE=20`: 100 new viewers asked on one HTTP/2 connection get at most 2 x 20
    plus refill; the rest 429 with `Retry-After` and the reason."""
    server = start_https(start_server, test_ca, "h2-viewers", env={"CLASSIC_PHOTOS_VIEWERS_PER_MINUTE": "20"})
    client = H2Client(server.host, server.port)
    streams = [client.request("POST", "/api/viewers") for _ in range(100)]
    client.wait(lambda: all(client.finished(stream) for stream in streams), BOUND * 3)
    statuses = [client.streams[stream].status for stream in streams]
    assert statuses.count(201) <= 45 and statuses.count(201) + statuses.count(429) == 100, statuses
    refused = next(client.streams[stream] for stream in streams if client.streams[stream].status == 429)
    assert "retry-after" in refused.headers and "error" in json.loads(refused.body)
    client.close()
