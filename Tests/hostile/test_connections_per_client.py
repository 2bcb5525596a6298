"""Attack: one client holds as many connections as it can, each kept busy by the slowest transfer the
lab offers (`/lab/images/FILE?bandwidth=1000`, minutes per photo). With
`CONNECTIONS_PER_CLIENT=16`, the attacker (bound to 127.0.0.2) gets 16 transfers and a 429 with a
reason for every other connection; a normal client (127.0.0.1) is served meanwhile, and the attacker
is served again once its connections close."""
from __future__ import annotations

import json
import socket
import time

import support

LIMIT = 16
ATTEMPTS = 120
ATTACKER = "127.0.0.2"


def attacker_socket(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((ATTACKER, 0))
    sock.settimeout(10)
    sock.connect((host, port))
    return sock


def first_answer(sock: socket.socket, deadline: float) -> bytes:
    """The bytes up to the end of the first response's head (or until the connection closes)."""
    data = b""
    while b"\r\n\r\n" not in data and time.monotonic() < deadline:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def test_one_client_cannot_hold_every_connection_with_slow_lab_transfers(start_server):
    server = start_server("connections-per-client", env={"CLASSIC_PHOTOS_CONNECTIONS_PER_CLIENT": str(LIMIT)})
    status, _, body = support.http_request(server.host, server.port, "GET", "/api/photos")
    assert status == 200
    file = json.loads(body)["photos"][0]["url"].rsplit("/images/", 1)[1]
    request = (f"GET /lab/images/{file}?latency=0&bandwidth=1000 HTTP/1.1\r\nHost: x\r\n\r\n").encode()

    socks: list[socket.socket] = []
    statuses: list[int] = []
    refusals: list[bytes] = []
    try:
        deadline = time.monotonic() + 60
        for _ in range(ATTEMPTS):
            sock = attacker_socket(server.host, server.port)
            socks.append(sock)
            sock.sendall(request)
            head = first_answer(sock, deadline)
            status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
            statuses.append(status)
            if status == 429:
                # The reason follows the head; the connection is closed after it.
                rest = b""
                while time.monotonic() < deadline:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    rest += chunk
                refusals.append(head + rest)
        transfers = statuses.count(200)
        assert transfers == LIMIT, f"{transfers} slow transfers held by one client (limit {LIMIT}); statuses {statuses}"
        assert statuses.count(429) == ATTEMPTS - LIMIT, statuses
        assert all(b'{"error":"too many connections from your address' in r for r in refusals), refusals[:1]
        assert all(b"retry-after: 1" in r.lower() for r in refusals), refusals[:1]

        # Another client is served while the attacker holds its 16 transfers.
        support.assert_normal_client_served(server.host, server.port, when="while one client holds its limit")
    finally:
        for sock in socks:
            sock.close()

    # Once the attacker's connections are gone, it is served again.
    def served_again() -> bool:
        sock = attacker_socket(server.host, server.port)
        try:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return first_answer(sock, time.monotonic() + 10).startswith(b"HTTP/1.1 200")
        finally:
            sock.close()

    assert support.wait_until(served_again, 20, interval=0.2), "the attacker's address was never served again"
    server.assert_alive()
