"""Issue 41, item 4, over HTTP/2: on main one TCP connection held 320 of 320 viewer places (32
viewers a shared stream, 100 streams a connection). A connection's streams all come from its
client, so they count against that client's shares: at the defaults for `--max-viewers 32`, one
connection gets its client's 8 viewers and 8 shared event streams, each carrying one of them; the
rest `429` with the reason; a stream that carries nobody any more makes room for the next (it alone
is ended, not the connection); another client is served after. SETTINGS_MAX_CONCURRENT_STREAMS
stays `--max-streams` (100)."""
from __future__ import annotations

import json

from h2client import H2Client
from tls_support import start_https

BOUND = 30  # seconds: only the failure bound
MAX_VIEWERS = 32
VIEWERS_PER_CLIENT = MAX_VIEWERS // 4  # the default share: a quarter
SHARED_STREAMS_PER_CLIENT = 8  # the default
# The suite lifts the shares for its other servers; these are set back to the defaults.
SHARE_ENV = {"CLASSIC_PHOTOS_VIEWERS_PER_CLIENT": str(VIEWERS_PER_CLIENT),
             "CLASSIC_PHOTOS_SHARED_STREAMS_PER_CLIENT": str(SHARED_STREAMS_PER_CLIENT)}


def statuses(client: H2Client, streams: list[int], ended: bool) -> list[int | None]:
    """Each stream's status once every one has a status (and, with `ended`, has ended)."""
    done = (lambda s: client.finished(s)) if ended else (lambda s: client.streams[s].status is not None)
    assert client.wait(lambda: all(done(stream) for stream in streams), BOUND), "streams unanswered"
    return [client.streams[stream].status for stream in streams]


def reason(client: H2Client, streams: list[int]) -> str:
    refused = next(stream for stream in streams if client.streams[stream].status == 429)
    client.wait(lambda: client.finished(refused), BOUND)
    return json.loads(client.streams[refused].body)["error"]


def open_shared(client: H2Client, count: int) -> list[int]:
    return [client.request("GET", "/events/shared", [("accept", "text/event-stream")]) for _ in range(count)]


def stream_id(client: H2Client, stream: int) -> str:
    """The shared stream's id, from its first event."""
    found: list[str] = []

    def opened() -> bool:
        found.extend(json.loads(data)["stream"] for name, data in client.events(stream) if name == "stream")
        return bool(found)
    assert client.wait(opened, BOUND), "no stream event"
    return found[0]


def post_json(client: H2Client, path: str, body: dict) -> int:
    return client.fetch("POST", path, headers=[("content-type", "application/json")], body=json.dumps(body).encode()).status


def test_one_http2_connection_holds_its_clients_share_of_viewers_and_shared_streams(start_server, test_ca):
    server = start_https(start_server, test_ca, "h2-shares", flags=["--max-viewers", str(MAX_VIEWERS)], env=SHARE_ENV)
    client = H2Client(server.host, server.port)
    try:
        assert client.wait(lambda: 3 in client.remote_settings, BOUND)
        assert client.remote_settings[3] == 100, f"SETTINGS_MAX_CONCURRENT_STREAMS {client.remote_settings}"

        # Every viewer place it asks for, on one connection: its client's share, the rest 429
        asked = [client.request("POST", "/api/viewers") for _ in range(MAX_VIEWERS)]
        got = statuses(client, asked, ended=True)
        print("viewers on one connection:", got.count(201), "of", MAX_VIEWERS)
        assert got.count(201) == VIEWERS_PER_CLIENT and got.count(429) == MAX_VIEWERS - VIEWERS_PER_CLIENT, got
        assert f"holds {VIEWERS_PER_CLIENT} viewers" in reason(client, asked)

        # Shared event streams: its share open at once, each carrying one of its viewers
        viewers = [json.loads(client.streams[stream].body)["viewer"] for stream in asked if client.streams[stream].status == 201]
        shared = open_shared(client, SHARED_STREAMS_PER_CLIENT)
        assert statuses(client, shared, ended=False) == [200] * SHARED_STREAMS_PER_CLIENT
        ids = [stream_id(client, stream) for stream in shared]
        for viewer, shared_id in zip(viewers, ids):
            assert post_json(client, f"/api/streams/{shared_id}/viewers", {"viewer": viewer}) == 204

        # Then more on the same connection are refused, saying why
        more = open_shared(client, 12)
        got = statuses(client, more, ended=True)
        print("shared streams on one connection:", SHARED_STREAMS_PER_CLIENT, "+", got.count(200), "of 20")
        assert got == [429] * 12, got
        assert f"holds {SHARED_STREAMS_PER_CLIENT} shared event streams" in reason(client, more)

        # When one carries nobody any more, the next one takes its place: that stream alone ends
        assert client.fetch("DELETE", f"/api/streams/{ids[2]}/viewers/{viewers[2]}").status == 204
        [replacement] = open_shared(client, 1)
        assert statuses(client, [replacement], ended=False) == [200]
        assert client.wait(lambda: client.finished(shared[2]), BOUND), "the idle stream was not ended"
        assert not client.closed and not any(client.finished(stream) for stream in shared if stream != shared[2])

        # And another client (another connection, from 127.0.0.2) is served both
        other = H2Client(server.host, server.port, source="127.0.0.2")
        try:
            assert other.fetch("POST", "/api/viewers").status == 201
            stream = other.request("GET", "/events/shared", [("accept", "text/event-stream")])
            assert statuses(other, [stream], ended=False) == [200]
        finally:
            other.close()
    finally:
        client.close()
