"""Running the server as an operator would: health, metrics, SIGTERM, restart, kill -9.

These start `classic-photos serve` processes of their own (no browser needed) and read their
server-sent events over a plain socket, as the page does.
"""
from __future__ import annotations

import json
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import EventStream, Server, new_viewer, own_cache_dir

JPEG_START, JPEG_END = b"\xff\xd8", b"\xff\xd9"
PNG_START, PNG_END = b"\x89PNG\r\n\x1a\n", b"IEND\xaeB`\x82"


def wait_until_filtered(server: Server, rows: range) -> None:
    """Shows `rows` to a new viewer and waits, on its event stream, until each is filtered or failed."""
    viewer = new_viewer(server)
    stream = EventStream(server, viewer)
    try:
        status, body = server.request("POST", "/api/viewport", {"viewer": viewer, "scrolling": False,
                                                                "first": rows.start, "last": rows.stop - 1})
        assert status == 204, body
        done = {p["index"] for p in server.photos() if p["state"] in ("filtered", "failed")}
        for name, data in stream.events():
            if name == "photo" and json.loads(data)["state"] in ("filtered", "failed"):
                done.add(json.loads(data)["index"])
            if set(rows) <= done:
                return
        pytest.fail("the event stream ended before the rows were done")
    finally:
        stream.close()


@pytest.fixture
def fresh(session_dir, request):
    """Starts servers sharing a cache folder of this test's own (so a restart finds what the first
    run kept); stopped at the end."""
    cache = own_cache_dir(Path(session_dir), request.node.name)
    servers: list[Server] = []

    def start(name: str, **settings) -> Server:
        settings = {"photo_count": 120, "latency_ms": 20, "bandwidth": 20_000_000, **settings}
        server = Server(Path(session_dir), cache, f"{request.node.name}-{name}", **settings)
        servers.append(server)
        server.wait_ready()
        return server

    yield start, cache
    for server in servers:
        server.stop()


def test_health_and_metrics(server):
    status, body = server.request("GET", "/healthz")
    assert status == 200 and body["status"] == "ready", body

    wait_until_filtered(server, range(0, 3))
    with urllib.request.urlopen(server.base_url + "/metrics", timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    families = {family.name: family for family in text_string_to_metric_families(text)}
    for name in ("http_requests", "classic_photos_operations", "classic_photos_downloaded_bytes",
                 "classic_photos_cache_requests", "classic_photos_viewers", "classic_photos_wasted_bytes"):
        assert name in families, f"{name} missing from /metrics: {sorted(families)}"
    started = [s for s in families["classic_photos_operations"].samples
               if s.labels == {"queue": "download", "outcome": "started"} and s.name.endswith("_total")]
    assert started and started[0].value >= 3
    routes = {s.labels.get("route") for s in families["http_requests"].samples}
    assert "POST /api/viewport" in routes


def test_sigterm_tells_viewers_and_exits_zero(fresh):
    start, _ = fresh
    server = start("sigterm")
    stream = EventStream(server, new_viewer(server))
    stream.wait_for(lambda name, _: name == "snapshot", "the snapshot")

    server.process.send_signal(signal.SIGTERM)

    name, data = stream.wait_for(lambda name, _: name == "shutdown", "the shutdown event")
    assert "stopping" in data
    assert server.process.wait(timeout=15) == 0


def test_a_restart_keeps_what_was_done(fresh):
    start, _ = fresh
    first = start("first")
    wait_until_filtered(first, range(0, 6))
    done = [p["index"] for p in first.photos()[:6] if p["state"] == "filtered"]
    assert len(done) >= 4
    first.process.send_signal(signal.SIGTERM)
    assert first.process.wait(timeout=15) == 0

    second = start("second")

    photos = second.photos()
    assert all(photos[index]["state"] == "filtered" for index in done)
    with urllib.request.urlopen(f"{second.base_url}/photos/{done[0]}/thumbnail", timeout=10) as r:
        assert r.status == 200 and r.read().startswith(JPEG_START)
    assert second.stats()["downloads"]["started"] == 0


def test_kill_9_while_writing_serves_nothing_corrupt(fresh):
    start, cache = fresh
    # Every row at once, from a fast origin: the disk cache is being written continuously.
    busy = start("busy", strategy="eager")
    viewer = new_viewer(busy)
    stream = EventStream(busy, viewer)
    filtered = 0
    for name, data in stream.events():
        if name == "photo" and json.loads(data)["state"] == "filtered":
            filtered += 1
            if filtered >= 15:
                break
    stream.close()
    # The disk cache is written behind the events: before the kill, wait (bounded) until it holds
    # the results of a few photos, so that the check below has something to check on any machine.
    images = cache / "images"
    deadline = time.monotonic() + 60
    while not images.is_dir() or len([p for p in images.iterdir() if not p.name.startswith(".")]) < 20:
        assert time.monotonic() < deadline, "the disk cache never received 20 results"
        time.sleep(0.05)
    busy.process.kill()
    busy.process.wait(timeout=10)

    again = start("again", strategy="visible")

    leftovers = [p.name for p in (cache / "images").iterdir() if p.name.startswith(".")]
    assert leftovers == [], f"half-written files were kept: {leftovers}"
    photos = again.photos()
    kept = [p["index"] for p in photos if p["state"] in ("filtered", "downloaded")]
    assert len(kept) >= 5, kept
    for index in kept:
        variant = "thumbnail" if photos[index]["state"] == "filtered" else "original"
        try:
            with urllib.request.urlopen(f"{again.base_url}/photos/{index}/{variant}", timeout=10) as response:
                body = response.read()
        except urllib.error.HTTPError as error:
            # An original is served only once it has decoded into its row's thumbnail: a row still
            # `downloaded` after the restart answers 404, which serves nothing corrupt either.
            assert variant == "original" and error.code == 404, f"photo {index} {variant}: {error}"
            continue
        whole = (body.startswith(JPEG_START) and body.endswith(JPEG_END)) or \
                (body.startswith(PNG_START) and body.endswith(PNG_END))
        assert whole, f"photo {index} {variant} is not a whole image ({len(body)} bytes)"
    assert again.stats()["downloads"]["started"] == 0
