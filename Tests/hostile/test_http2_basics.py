"""HTTPS on the bare server: ALPN `h2` and `http/1.1`, Strict-Transport-Security, the plain-HTTP
redirect port, the page, event stream, thumbnails and the lab unchanged over HTTP/2 (one
connection), and REDbot's checks over HTTPS."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

import support
from conftest import free_port
from h2client import H2Client
from h2normal import H2NormalClient
from test_redbot import describe, flatten, run_redbot
from tls_support import start_https

HSTS = "max-age=31536000"


@pytest.fixture(scope="module")
def server(server_factory, test_ca):
    redirect = free_port()
    started = start_https(server_factory.start, test_ca, "h2-basics", flags=["--http-redirect-port", str(redirect)])
    started.redirect_port = redirect
    yield started
    started.stop()


def test_page_events_and_thumbnail_over_one_http2_connection(server):
    H2NormalClient(server.host, server.port).check()


def test_http11_over_tls_and_hsts_on_both(server):
    status, headers, body = support.http_request(server.host, server.port, "GET", "/", tls=True)
    assert status == 200 and b"data-viewer=" in body
    assert headers.get("strict-transport-security") == HSTS
    client = H2Client(server.host, server.port)
    for path in ("/healthz", "/nowhere"):
        answer = client.fetch("GET", path)
        assert answer.headers.get("strict-transport-security") == HSTS, (path, answer.headers)
    client.close()


def test_plain_http_port_redirects_to_https(server):
    status, headers, _ = support.http_request(server.host, server.redirect_port, "GET", "/lab?x=1")
    assert status == 308 and headers["location"] == f"https://127.0.0.1:{server.port}/lab?x=1", (status, headers)
    status, _, body = support.http_request(server.host, server.redirect_port, "GET", "/", headers={"Host": "evil/x"})
    assert status == 400 and "error" in json.loads(body)


def test_lab_over_http2(server):
    """A lab of two lanes driven over one HTTP/2 connection: both lanes' streams, their viewport
    reports and their thumbnails multiplexed; then ended."""
    client = H2Client(server.host, server.port)
    created = client.fetch("POST", "/api/labs", headers=[("content-type", "application/json")],
                           body=json.dumps({"lanes": [{"strategy": "eager"}, {"strategy": "visible"}]}).encode())
    assert created.status == 201, bytes(created.body)
    lab = json.loads(created.body)
    viewers = [lane["viewer"] for lane in lab["lanes"]]
    streams = {viewer: client.request("GET", f"/events?viewer={viewer}") for viewer in viewers}
    for viewer in viewers:
        report = {"viewer": viewer, "scrolling": False, "first": 0, "last": 3}
        answer = client.fetch("POST", "/api/viewport", headers=[("content-type", "application/json")],
                              body=json.dumps(report).encode())
        assert answer.status == 204, bytes(answer.body)
    filtered = set()

    def all_filtered() -> bool:
        for viewer, stream in streams.items():
            if any(support.row_filtered(name, data, 0) for name, data in client.events(stream)):
                filtered.add(viewer)
        return len(filtered) == len(viewers)

    assert client.wait(all_filtered, 60), f"lanes with row 0 filtered: {filtered}; GOAWAY {client.goaway}"
    for viewer in viewers:
        thumbnail = client.fetch("GET", f"/photos/0/thumbnail?viewer={viewer}")
        assert thumbnail.status == 200 and thumbnail.headers["content-type"].startswith("image/")
    assert client.fetch("DELETE", f"/api/labs/{lab['lab']}").status == 204
    client.close()


def test_redbot_over_https(server):
    H2NormalClient(server.host, server.port).check()  # row 0's thumbnail is there
    urls = [f"https://{server.host}:{server.port}{path}" for path in ("/", "/photos/0/thumbnail", "/api/photos")]
    with ThreadPoolExecutor(max_workers=len(urls)) as pool:
        results = list(pool.map(run_redbot, urls))
    for result in results:
        assert "runner_error" not in result, f"{result['url']}: {result['runner_error']}"
        assert result["done"] and result["fetch_error"] is None, describe(result)
        assert 200 <= int(result["status"]) < 300, describe(result)
        bad = [note for _, note in flatten(result["notes"]) if note["level"] == "bad"]
        assert not bad, "REDbot's errors:\n" + describe(result)
