"""Issue 41, item 4: shared event streams and their joins, capped per client with the oldest idle
evicted first. On main one client opened as many `GET /events/shared` as it liked (each a place the
server holds, and over HTTP/2 a hundred of them per connection). Now a client (an IPv4 address, an
IPv6 /64) holds at most `--shared-streams-per-client` open (8 by default); past it, its own stream that
has carried no viewer for longest is closed to make room; with every one carrying a viewer, `429`
saying why. Clients are named by `X-Forwarded-For` from a trusted 127.0.0.1, as behind the edge."""
from __future__ import annotations

import json

import support

SHARE = 8  # --shared-streams-per-client's default
# The suite lifts the share for its other servers; this one has the default back.
SHARE_ENV = {"CLASSIC_PHOTOS_SHARED_STREAMS_PER_CLIENT": str(SHARE)}


def post(server, path: str, client: str, body: dict | None = None) -> tuple[int, bytes]:
    headers = {"X-Forwarded-For": client, "Content-Type": "application/json"}
    data = json.dumps(body).encode() if body is not None else None
    status, _, reply = support.http_request(server.host, server.port, "POST", path, data, headers)
    return status, reply


def carry_a_viewer(server, stream: support.SharedStream, client: str) -> str:
    status, reply = post(server, "/api/viewers", client)
    assert status == 201, reply
    viewer = json.loads(reply)["viewer"]
    status, reply = post(server, f"/api/streams/{stream.id}/viewers", client, {"viewer": viewer})
    assert status == 204, reply
    return viewer


def test_a_client_holds_its_share_of_shared_streams_and_its_oldest_idle_one_makes_room(start_server):
    server = start_server("shared-stream-shares", flags=["--trusted-proxy", "127.0.0.1"], env=SHARE_ENV)
    client = "2001:db8:41:4::1"
    streams: list[support.SharedStream] = []
    try:
        # Given a client's share of shared streams, each carrying one of its viewers
        for _ in range(SHARE):
            stream = support.SharedStream(server, client)
            assert stream.status == 200, stream.body
            streams.append(stream)
        viewers = [carry_a_viewer(server, stream, client) for stream in streams]

        # When it asks for one more (from another address of its /64), it is refused, saying why
        more = support.SharedStream(server, "2001:db8:41:4:ffff::2")
        streams.append(more)
        print("one more shared stream with all", SHARE, "carrying a viewer:", more.status)
        assert more.status == 429, f"a client held {SHARE + 1} shared streams open"
        assert f"2001:db8:41:4::/64 holds {SHARE} shared event streams" in more.body, more.body

        # When one of them carries nobody any more, the next one takes its place: that idle one is closed
        idle = streams[3]
        status, _, _ = support.http_request(server.host, server.port, "DELETE", f"/api/streams/{idle.id}/viewers/{viewers[3]}",
                                            headers={"X-Forwarded-For": client})
        assert status == 204
        replacement = support.SharedStream(server, client)
        streams.append(replacement)
        assert replacement.status == 200, replacement.body
        assert idle.ended(), "the idle stream was not closed"

        # And its streams still carrying viewers stay open: each takes another join
        for stream in streams[:SHARE]:
            if stream is not idle:
                carry_a_viewer(server, stream, client)

        # And another client is served
        other = support.SharedStream(server, "203.0.113.41")
        streams.append(other)
        assert other.status == 200
    finally:
        for stream in streams:
            stream.close()
