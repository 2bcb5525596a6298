"""Outbound proxies only when named (issue 41, item 5): `http_proxy`, `https_proxy` and `ALL_PROXY` in
the server's environment are not used. Through a proxy the open-socket guard would see only the
proxy's address, so a photo at a loopback port nobody named would come through the proxy."""
from __future__ import annotations

import json

import pytest

import support
from conftest import free_port
from trust_support import ScriptedOrigin, load_rows

SECRET = b"INTERNAL-SECRET-0b9e"


@pytest.fixture(scope="module")
def jpeg(server_factory) -> bytes:
    """One of the generated sample photos (a server start makes them)."""
    server = server_factory.start("proxy-samples")
    server.stop()
    folder = server_factory.workdir / "samples" / "sample-photos-v2"
    return sorted(folder.glob("photo-0*.jpg"))[0].read_bytes()


def test_a_proxy_in_the_environment_is_not_used(server_factory, jpeg):
    # Given the named origin, which would also act as a proxy: asked for an absolute URL (what a
    # client sends a proxy) it answers for that URL, and for a loopback port nobody named it has a
    # photo whose bytes end with a secret
    origin = ScriptedOrigin()
    inside = f"http://127.0.0.1:{free_port()}/secret.jpg"
    listing = (200, {"Content-Type": "application/json"},
               json.dumps({"A inside": inside, **{f"B good {n}": origin.url(f"/good.jpg?n={n}") for n in range(2)}}).encode())
    origin.routes = {
        "/photos.json": listing,
        origin.url("/photos.json"): listing,
        "/good.jpg": (200, {"Content-Type": "image/jpeg"}, jpeg),
        origin.url("/good.jpg"): (200, {"Content-Type": "image/jpeg"}, jpeg),
        inside: (200, {"Content-Type": "image/jpeg"}, jpeg + SECRET),
    }
    proxy = f"http://127.0.0.1:{origin.port}"
    try:
        # When the server runs with every proxy variable libcurl reads pointing at it
        server = server_factory.start("proxy-env", flags=["--source", origin.url("/photos.json"), "--strategy", "visible"],
                                      env={"http_proxy": proxy, "https_proxy": proxy, "ALL_PROXY": proxy,
                                           "all_proxy": proxy, "no_proxy": "", "NO_PROXY": ""})
        rows = load_rows(server.host, server.port, 0, 2)
        # Then the named origin's photos load directly, the unnamed loopback port is refused at its own
        # address, and the proxy was never asked for anything
        assert rows[1]["state"] == rows[2]["state"] == "filtered", rows
        assert rows[0]["state"] == "failed", rows
        assert "is a loopback address, not an allowed source" in rows[0]["reason"], rows[0]
        assert origin.requests(inside) == 0
        assert origin.requests(origin.url("/photos.json")) == origin.requests(origin.url("/good.jpg")) == 0
        status, _, body = support.http_request(server.host, server.port, "GET", "/photos/0/original")
        assert status == 404 and SECRET not in body, (status, body[-40:])
    finally:
        origin.close()
