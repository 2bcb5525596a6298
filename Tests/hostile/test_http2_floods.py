"""HTTP/2 floods against the bare server over TLS, each repeated (a new connection each round)
while the HTTP/2 normal client is served, and the normal client served again after: rapid reset
(CVE-2023-44487), CONTINUATION floods, an HPACK bomb, SETTINGS, PING and WINDOW_UPDATE floods.
Every round must be ended by the server (GOAWAY with an error code, then closed) within the bound."""
from __future__ import annotations

import threading

import pytest

import support
from h2client import CONTINUATION, ENHANCE_YOUR_CALM, HEADERS, PING, SETTINGS, WINDOW_UPDATE, H2Client, RawH2, frame
from h2normal import H2NormalClient, h2_normal_client_thread
from tls_support import start_https

ROUND_BOUND = 20  # seconds for the server to end one round: only the failure bound


def hpack_int(value: int, prefix: int, flags: int) -> bytes:
    """An HPACK integer with an N-bit prefix (RFC 7541 5.1)."""
    limit = (1 << prefix) - 1
    if value < limit:
        return bytes([flags | value])
    out, value = [flags | limit], value - limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    return bytes(out + [value])


# GET https://.../healthz: indexed :method GET, :scheme https, then a literal :path.
REQUEST_FIELDS = b"\x82\x87" + b"\x44" + hpack_int(8, 7, 0) + b"/healthz"


class RepeatedAttack(threading.Thread):
    """Runs `one_round()` on new connections until stopped; each returns True once the server ended it."""

    def __init__(self, one_round):
        super().__init__(daemon=True)
        self.one_round = one_round
        self.rounds = 0
        self.failures: list[str] = []
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set() and self.rounds < 1_000:
            try:
                if not self.one_round():
                    self.failures.append(f"round {self.rounds + 1} was not ended by the server within {ROUND_BOUND} s")
            except Exception as error:  # noqa: BLE001 - a refused connection is the server's answer too
                if not isinstance(error, OSError):
                    self.failures.append(f"round {self.rounds + 1}: {error!r}")
            self.rounds += 1


def hold_attack_while_served(server, one_round):
    attack = RepeatedAttack(one_round)
    attack.start()
    support.wait_until(lambda: attack.rounds >= 1, timeout=60)
    during = h2_normal_client_thread(server.host, server.port, deadline=90)
    during.start()
    during.join(100)
    still_attacking = attack.is_alive()
    attack.stop.set()
    attack.join(ROUND_BOUND * 3)
    server.assert_alive()
    assert during.error is None, f"during the attack: {during.error}"
    assert still_attacking, "the attack ended before the normal client was done: not a test of `during`"
    assert attack.rounds >= 2 and not attack.failures, f"{attack.rounds} rounds: {attack.failures}"
    H2NormalClient(server.host, server.port).check()
    return attack


def raw_flood(server, frames: bytes):
    def one_round() -> bool:
        raw = RawH2(server.host, server.port)
        try:
            for start in range(0, len(frames), 16384):
                if not raw.send(frames[start:start + 16384]):
                    break
            # Ended means closed by the server (a GOAWAY alone would leave the connection to the attacker).
            closed = raw.wait_ended(ROUND_BOUND, closed=True)
            assert raw.goaway is None or raw.goaway[0] != 0, f"GOAWAY without an error code: {raw.goaway}"
            return closed
        finally:
            raw.close()
    return one_round


@pytest.fixture(scope="module")
def server(server_factory, test_ca):
    started = start_https(server_factory.start, test_ca, "h2-floods")
    yield started
    started.stop()


def healthz_requests(server) -> int:
    _, _, body = support.http_request(server.host, server.port, "GET", "/metrics", tls=True)
    total = 0
    for line in body.decode().splitlines():
        if line.startswith("http_requests_total") and 'route="GET /healthz"' in line:
            total += int(float(line.rsplit(" ", 1)[1]))
    return total


def test_rapid_reset_is_cut_off(server):
    """CVE-2023-44487: 5,000 streams opened and reset at once per connection."""
    before = healthz_requests(server)

    def one_round() -> bool:
        client = H2Client(server.host, server.port)
        try:
            for batch in range(50):
                for _ in range(100):
                    stream = client.request("GET", "/healthz")
                    client.conn.reset_stream(stream)
                client.flush()
                if client.closed:
                    break
            client.wait(lambda: client.closed, ROUND_BOUND)
            return client.closed
        finally:
            client.close()

    attack = hold_attack_while_served(server, one_round)
    # Each connection is ended after about 200 resets: the server answered a few hundred streams of
    # the 5,000 each round opened, not all of them.
    answered = healthz_requests(server) - before
    assert answered <= attack.rounds * 1_000, f"{answered} streams answered in {attack.rounds} rounds"


def test_continuation_flood_is_cut_off(server):
    """A header block that never ends: HEADERS without END_HEADERS, then 20,000 CONTINUATION frames."""
    flood = frame(HEADERS, 0, 1, REQUEST_FIELDS) + frame(CONTINUATION, 0, 1, b"\x40\x01x\x01y") * 20_000
    hold_attack_while_served(server, raw_flood(server, flood))


def test_hpack_bomb_is_refused(server):
    """A 4,000-byte field put in the dynamic table, then referenced 4,000 times in one header block
    (16 MB once decoded, 8 KB on the wire), on 20 streams per connection."""
    literal = b"\x40" + hpack_int(6, 7, 0) + b"x-bomb" + hpack_int(4000, 7, 0) + b"a" * 4000
    first = frame(HEADERS, 0x5, 1, REQUEST_FIELDS + literal + b"\xbe" * 4000)
    rest = b"".join(frame(HEADERS, 0x5, stream, REQUEST_FIELDS + b"\xbe" * 4000) for stream in range(3, 41, 2))
    rss_before = server.rss_bytes()
    hold_attack_while_served(server, raw_flood(server, first + rest))
    assert server.rss_bytes() - rss_before < 200 * 1024 * 1024


@pytest.mark.parametrize("kind", ["SETTINGS", "PING"])
def test_control_frame_flood_is_cut_off(server, kind):
    one = frame(SETTINGS, 0, 0) if kind == "SETTINGS" else frame(PING, 0, 0, b"12345678")
    hold_attack_while_served(server, raw_flood(server, one * 20_000))


def test_window_update_flood_is_cut_off(server):
    """100,000 WINDOW_UPDATEs of 1 byte on the connection and on a stream, nothing read."""
    updates = frame(WINDOW_UPDATE, 0, 0, (1).to_bytes(4, "big")) * 50_000
    stream = frame(HEADERS, 0x5, 1, REQUEST_FIELDS) + frame(WINDOW_UPDATE, 0, 1, (1).to_bytes(4, "big")) * 50_000

    hold_attack_while_served(server, raw_flood(server, updates))
    hold_attack_while_served(server, raw_flood(server, stream))


def test_window_update_flood_gets_enhance_your_calm(server):
    raw = RawH2(server.host, server.port)
    try:
        raw.send(frame(WINDOW_UPDATE, 0, 0, (1).to_bytes(4, "big")) * 5_000)
        assert raw.wait_ended(ROUND_BOUND), "the WINDOW_UPDATE flood was not ended"
        assert raw.goaway is not None and raw.goaway[0] == ENHANCE_YOUR_CALM, f"GOAWAY {raw.goaway}"
    finally:
        raw.close()
