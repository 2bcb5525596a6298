"""Attack 3: more connections than the server has file descriptors. The server runs under
`ulimit -n 256` (soft and hard, so it cannot raise it) and 400 idle connections are opened: the
process stays up (accepting pauses; it never exits) and serves a normal client once they are gone."""
from __future__ import annotations

import select
import socket
import time

import support

OPEN_FILES = 256
FLOOD = 400
HOLD = 5  # seconds the flood is held open


def open_flood(host: str, port: int, count: int, timeout: float = 10) -> tuple[list[socket.socket], int]:
    """Starts `count` non-blocking connects; returns the sockets and how many were established
    within `timeout` (beyond the server's accept queue the kernel leaves the rest pending)."""
    socks = []
    for _ in range(count):
        sock = socket.socket(support.family_of(host), socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.connect_ex((host, port))
        socks.append(sock)
    pending = {sock.fileno(): sock for sock in socks}
    established = 0
    end = time.monotonic() + timeout
    while pending and time.monotonic() < end:
        poller = select.poll()
        for fd in pending:
            poller.register(fd, select.POLLOUT | select.POLLERR | select.POLLHUP)
        for fd, _ in poller.poll(max(0.0, end - time.monotonic()) * 1000):
            sock = pending.pop(fd, None)
            if sock is not None and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                established += 1
    return socks, established


def open_files_limit(pid: int) -> str:
    with open(f"/proc/{pid}/limits") as f:
        for line in f:
            if line.startswith("Max open files"):
                return " ".join(line.split()[3:5])
    return "?"


def test_connection_flood_past_the_open_files_limit(start_server):
    server = start_server("flood", open_files=OPEN_FILES)
    limits = open_files_limit(server.pid)
    assert limits == f"{OPEN_FILES} {OPEN_FILES}", f"the server runs with open-files limits {limits}"
    socks, established = open_flood(server.host, server.port, FLOOD)
    try:
        deadline = time.monotonic() + HOLD
        while time.monotonic() < deadline and server.alive():
            time.sleep(0.2)  # watches the process while the flood is held
        fds_during = support.open_fds(server.pid) if server.alive() else None
        assert server.alive(), (
            f"the server exited under {FLOOD} connections ({established} established) with "
            f"`ulimit -n {OPEN_FILES}`; " + server.describe())
    finally:
        for sock in socks:
            sock.close()
    time.sleep(1)
    server.assert_alive()
    support.assert_normal_client_served(server.host, server.port, deadline=60, when=(
        f"after a flood of {FLOOD} connections ({established} established, the server holding "
        f"{fds_during} descriptors) under `ulimit -n {OPEN_FILES}`"))
    server.assert_alive()
