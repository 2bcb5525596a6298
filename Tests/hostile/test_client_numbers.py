"""Numbers a client sends are bounded before use: the extremes of 64-bit integers in the places a
client names a number (an event id to resume from, the row a page opens at, a photo index) are
answered, never trapped on, and the server serves everyone after them."""
from __future__ import annotations

import json

import pytest

import support

EXTREMES = ["18446744073709551615", "18446744073709551616", "9223372036854775807", "-9223372036854775808", "-1"]


@pytest.fixture(scope="module")
def server(server_factory):
    server = server_factory.start("client-numbers")
    yield server
    server.stop()


def new_viewer(server) -> str:
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
    assert status == 201, body
    return json.loads(body)["viewer"]


def first_event(server, viewer: str, headers: dict[str, str] | None = None, query: str = "") -> tuple[int, str | None]:
    stream = support.EventStream(server.host, server.port, viewer + query, headers=headers)
    try:
        return stream.status, (stream.next_event() or (None,))[0] if stream.status == 200 else None
    finally:
        stream.close()


@pytest.mark.parametrize("last_event_id", EXTREMES)
def test_a_reconnect_from_any_event_id_gets_a_fresh_start(server, last_event_id):
    # Given a viewer whose stream was opened once
    viewer = new_viewer(server)
    assert first_event(server, viewer) == (200, "source")

    # When it reconnects claiming an event id it was never sent, by header and by query
    by_header = first_event(server, viewer, headers={"Last-Event-ID": last_event_id})
    by_query = first_event(server, viewer, query=f"&lastEventId={last_event_id}")

    # Then each starts again from the list's status, and the server serves on
    assert by_header == (200, "source") and by_query == (200, "source")
    server.assert_alive()
    support.assert_normal_client_served(server.host, server.port, when=f"after Last-Event-ID {last_event_id}")


@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize("row", EXTREMES)
def test_the_page_opens_at_any_row(server, method, row):
    status, _, body = support.http_request(server.host, server.port, method, f"/?row={row}")
    assert status == 200, body[:300]
    server.assert_alive()


@pytest.mark.parametrize("index", EXTREMES)
def test_a_photo_index_of_any_size_is_a_4xx(server, index):
    for method, path in [("GET", f"/photos/{index}/thumbnail"), ("POST", f"/api/photos/{index}/retry")]:
        status, _, body = support.http_request(server.host, server.port, method, path)
        assert status in (400, 404), f"{method} {path}: {status} {body[:300]!r}"
        assert json.loads(body)["error"]
    server.assert_alive()
    support.assert_normal_client_served(server.host, server.port, when=f"after photo index {index}")
