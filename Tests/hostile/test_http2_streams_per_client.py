"""Issue 41, over HTTP/2: `--max-streams` bounds one connection and `--connections-per-client` the
connections, but on main a client could hold their product (64 x 100 streams, each a request the
server works on). Streams are now counted per client across all of its connections
(`--streams-per-client`, default twice `--max-streams`: 200, more than a browser's one connection
opens): one client's 3 connections of 100 held requests each get 200 streams, the other 100 are
reset `REFUSED_STREAM` before they are read; another client is served beside it; the held streams
are each answered once their bodies end, and the client's budget comes back as they close."""
from __future__ import annotations

import support
from h2client import H2Client
from h2normal import H2NormalClient
from tls_support import start_https

BOUND = 30  # seconds: only the failure bound
REFUSED_STREAM = 0x7
ATTACKER = "127.0.0.3"
# Held streams are requests whose bodies have not ended: long enough that none is cut as idle.
HOLD_ENV = {"CLASSIC_PHOTOS_IDLE_TIMEOUT": "600"}


def hold(client: H2Client, count: int) -> list[int]:
    """`count` POST /api/viewport requests whose bodies have begun and not ended."""
    return [client.request("POST", "/api/viewport", [("content-type", "application/json")], b"{", end=False)
            for _ in range(count)]


def refused(held: list[tuple[H2Client, list[int]]]) -> int:
    for client, _ in held:
        client.pump(0.05)
    return sum(client.streams[s].reset == REFUSED_STREAM for client, streams in held for s in streams)


def refused_streams_and_budget_back(start_server, test_ca, name: str, env: dict, connections: int, per_connection: int,
                                    budget: int):
    server = start_https(start_server, test_ca, name, env={**HOLD_ENV, **env})
    held = [(client, hold(client, per_connection))
            for client in (H2Client(server.host, server.port, source=ATTACKER) for _ in range(connections))]
    asked = connections * per_connection
    try:
        # Past the budget, streams are reset REFUSED_STREAM (on main: none, all held)
        support.wait_until(lambda: refused(held) >= asked - budget, BOUND)
        count = refused(held)
        print(f"{ATTACKER}: {asked - count} of {asked} streams held, {count} refused")
        assert count == asked - budget, f"{count} of {asked} streams refused, wanted {asked - budget} (budget {budget})"
        for client, streams in held:
            assert not client.closed and client.goaway is None, "a connection was ended, not a stream refused"
            others = [s for s in streams if client.streams[s].reset not in (None, REFUSED_STREAM)]
            assert not others, f"streams reset otherwise: {[client.streams[s].reset for s in others]}"

        # One more from the same client, on a new connection, is refused too; another client is served
        extra = H2Client(server.host, server.port, source=ATTACKER)
        assert extra.fetch("GET", "/healthz", timeout=BOUND).reset == REFUSED_STREAM
        H2NormalClient(server.host, server.port).check()
        assert "HTTP/2 stream refused: too many open from one client" in server.stderr(100_000)

        # The held streams were live: each is answered once its body ends (400: `{}` names no viewer)
        live = []
        for client, streams in held:
            for stream in streams:
                if client.streams[stream].reset is None:
                    client.conn.send_data(stream, b"}", end_stream=True)
                    live.append((client, stream))
            client.flush()
        for client, streams in held:
            client.wait(lambda: all(client.finished(s) for s in streams), BOUND)
        statuses = [client.streams[stream].status for client, stream in live]
        assert len(live) == budget and statuses == [400] * budget, statuses

        # Their places came back: the client's next stream is served
        assert support.wait_until(lambda: extra.fetch("GET", "/healthz", timeout=BOUND).status == 200, BOUND), \
            "the client's streams were not given back as they closed"
        extra.close()
    finally:
        for client, _ in held:
            client.close()


def test_a_clients_streams_across_its_connections_stop_at_the_default_budget(start_server, test_ca):
    """Defaults: `--max-streams` 100, so 200 streams per client; 3 connections of 100 held requests."""
    refused_streams_and_budget_back(start_server, test_ca, "h2-streams-per-client", env={},
                                    connections=3, per_connection=100, budget=200)


def test_the_setting_sets_the_budget(start_server, test_ca):
    """`CLASSIC_PHOTOS_STREAMS_PER_CLIENT=30`: 4 connections of 20 held requests get 30 streams."""
    refused_streams_and_budget_back(start_server, test_ca, "h2-streams-setting",
                                    env={"CLASSIC_PHOTOS_STREAMS_PER_CLIENT": "30"},
                                    connections=4, per_connection=20, budget=30)
