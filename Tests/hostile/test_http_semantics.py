"""HTTP as the standards say (issue 10, beside REDbot): every response has `Date`; a 304 repeats
the `ETag` and `Cache-Control` of its 200; text is gzip-compressed for a client that accepts it
(and only then, with `Vary: Accept-Encoding`); the page links its static files under names that
change with their content (`/static/v/<hash>/FILE`), served with long-lived caching, while
`/static/FILE` still works."""
from __future__ import annotations

import email.utils
import gzip
import json
import re

import pytest

import support


@pytest.fixture(scope="module")
def server(server_factory):
    server = server_factory.start("semantics")
    support.assert_normal_client_served(server.host, server.port, when="setting up")  # thumbnail 0 exists
    yield server
    server.stop()


def fetch(server, method: str, path: str, headers: dict | None = None, body: bytes | None = None,
          head_only: bool = False) -> support.Response:
    request = support.request_bytes(method, path, dict(headers or {}, Connection="close"), body or b"")
    exchange = support.raw_exchange(server.host, server.port, request, timeout=10, head_only=[head_only],
                                     enough=lambda data: bool(support.parse_responses(data, [head_only])[0]))
    assert exchange.responses, f"{method} {path}: " + exchange.describe()
    return exchange.responses[0]


def viewer_of(server) -> str:
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
    assert status == 201
    return json.loads(body)["viewer"]


def test_every_response_has_a_date(server):
    etag = fetch(server, "GET", "/static/app.css").headers.get("etag", '"none"')
    viewer = viewer_of(server)
    cases = {
        "GET /": ("GET", "/", {}, None, False),
        "HEAD /": ("HEAD", "/", {}, None, True),
        "GET /healthz": ("GET", "/healthz", {}, None, False),
        "GET /api/photos": ("GET", "/api/photos", {}, None, False),
        "GET /api/stats": ("GET", "/api/stats", {}, None, False),
        "GET /static/app.css": ("GET", "/static/app.css", {}, None, False),
        "GET /static/app.css (304)": ("GET", "/static/app.css", {"If-None-Match": etag}, None, False),
        "GET /photos/0/thumbnail": ("GET", "/photos/0/thumbnail", {}, None, False),
        "POST /api/viewers (201)": ("POST", "/api/viewers", {"Content-Length": "0"}, None, False),
        "POST /api/viewport (204)": ("POST", "/api/viewport", {"Content-Type": "application/json"},
                                     json.dumps({"viewer": viewer, "scrolling": True}).encode(), False),
        "POST /api/viewport (400)": ("POST", "/api/viewport", {"Content-Type": "application/json"}, b"{", False),
        "GET /nothing-here (404)": ("GET", "/nothing-here", {}, None, False),
        "GET /photos/9999/thumbnail (404)": ("GET", "/photos/9999/thumbnail", {}, None, False),
    }
    missing = {}
    for name, (method, path, headers, body, head_only) in cases.items():
        response = fetch(server, method, path, headers, body, head_only)
        date = response.headers.get("date")
        try:
            ok = date is not None and email.utils.parsedate_to_datetime(date) is not None
        except (TypeError, ValueError):
            ok = False
        if not ok:
            missing[name] = f"{response.status}, Date {date!r}"
    # The event stream's head too.
    sock = support.connect(server.host, server.port)
    try:
        sock.sendall(f"GET /events?viewer={viewer} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        head = support.read_until_close(sock, support.time.monotonic() + 10, enough=lambda d: b"\r\n\r\n" in d).data
    finally:
        sock.close()
    if not re.search(rb"(?im)^date: ", head.split(b"\r\n\r\n")[0]):
        missing["GET /events"] = head.split(b"\r\n\r\n")[0].decode(errors="replace")
    assert not missing, f"responses without a valid Date: {missing}"


@pytest.mark.parametrize("path", ["/static/app.css", "/photos/0/thumbnail"])
def test_304_repeats_etag_and_cache_control(server, path):
    full = fetch(server, "GET", path)
    assert full.status == 200 and "etag" in full.headers, full.headers
    again = fetch(server, "GET", path, {"If-None-Match": full.headers["etag"]})
    assert again.status == 304, again.status
    assert again.body == b""
    for name in ("etag", "cache-control"):
        assert again.headers.get(name) == full.headers.get(name), (
            f"304 {name}: {again.headers.get(name)!r}, 200 had {full.headers.get(name)!r}")


@pytest.mark.parametrize("path", ["/", "/static/app.js", "/static/app.css", "/api/photos"])
def test_text_is_gzipped_when_accepted(server, path):
    if path in ("/", "/api/photos"):
        support.settle_first_screen(server.host, server.port)
    plain = fetch(server, "GET", path)
    assert plain.status == 200
    assert "content-encoding" not in plain.headers, f"{path} encoded without Accept-Encoding: {plain.headers}"
    packed = fetch(server, "GET", path, {"Accept-Encoding": "gzip"})
    assert packed.status == 200
    assert packed.headers.get("content-encoding") == "gzip", f"{path} with Accept-Encoding: gzip: {packed.headers}"
    assert "accept-encoding" in packed.headers.get("vary", "").lower(), f"{path}: Vary {packed.headers.get('vary')!r}"
    body = gzip.decompress(packed.body)
    if path == "/":  # each load is a new viewer, with its own id in the page
        assert body.startswith(b"<!doctype html>") and len(body) == len(plain.body)
    else:
        assert body == plain.body
    assert len(packed.body) < len(plain.body)


def test_page_links_static_files_by_content(server):
    page = fetch(server, "GET", "/").body.decode()
    links = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert links, "the page links no static file"
    unversioned = [link for link in links if not re.match(r"/static/v/[^/]+/[^/?]+$", link)]
    assert not unversioned, f"static links not of the form /static/v/<hash>/FILE: {unversioned}"
    for link in sorted(set(links)):
        response = fetch(server, "GET", link)
        assert response.status == 200, f"{link}: {response.status}"
        max_age = re.search(r"max-age=(\d+)", response.headers.get("cache-control", ""))
        assert max_age and int(max_age.group(1)) >= 86_400 * 30, (
            f"{link}: Cache-Control {response.headers.get('cache-control')!r} (wanted a max-age of 30 days or more)")
        name = link.rsplit("/", 1)[1]
        assert fetch(server, "GET", f"/static/{name}").body == response.body, f"/static/{name} differs from {link}"
