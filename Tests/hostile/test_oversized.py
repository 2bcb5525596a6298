"""Attack 2: a 1 MiB header line, a 1 MiB URL and 10,000 header lines. Each is answered 431 / 414
or its connection closed, at a bounded cost in CPU (the server's own CPU time, from /proc, for
the three together), and a normal client is served while they go on and after. Then the limits
as configured: a request just under each limit is served, one just over it is refused."""
from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import support

MIB = 1 << 20
ANSWER_TIMEOUT = 10  # seconds an attack waits for its answer or close (the failure bound)
CPU_BUDGET = 2.0  # seconds of server CPU for the three attacks together

ATTACKS = {
    "1 MiB header line": (
        b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * MIB + b"\r\n\r\n", {431}),
    "1 MiB URL": (
        b"GET /healthz?" + b"a" * MIB + b" HTTP/1.1\r\nHost: localhost\r\n\r\n", {414}),
    "10,000 header lines": (
        b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n"
        + b"".join(b"X-H%d: v\r\n" % i for i in range(10_000)) + b"\r\n", {431}),
}


def complete_response(data: bytes) -> bool:
    responses, _ = support.parse_responses(data)
    return bool(responses)


def attack(server, name: str) -> support.Exchange:
    return support.raw_exchange(server.host, server.port, ATTACKS[name][0], timeout=ANSWER_TIMEOUT,
                                enough=complete_response)


def judge(name: str, exchange: support.Exchange) -> str | None:
    """None when the attack was answered as it should be, else what went wrong."""
    allowed = ATTACKS[name][1]
    if exchange.responses:
        status = exchange.responses[0].status
        return None if status in allowed else f"{name}: answered {status}, wanted {sorted(allowed)} or a close"
    if exchange.closed:
        return None
    return f"{name}: neither answered nor closed within {ANSWER_TIMEOUT} s ({exchange.describe()})"


@pytest.fixture
def server(start_server):
    return start_server("oversized")


def test_huge_requests_are_refused_cheaply_and_others_served(server):
    names = list(ATTACKS)
    # Alone first, to measure their CPU.
    cpu_before = server.cpu_seconds()
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        outcomes = dict(zip(names, pool.map(lambda name: attack(server, name), names)))
    time.sleep(1)  # what the server does after the clients left counts too
    cpu = server.cpu_seconds() - cpu_before
    server.assert_alive()
    problems = [p for p in (judge(name, outcomes[name]) for name in names) if p]
    assert not problems, "; ".join(problems) + f" (server CPU meanwhile: {cpu:.2f} s)"
    assert cpu < CPU_BUDGET, f"the three requests cost the server {cpu:.2f} s of CPU (budget {CPU_BUDGET} s)"
    support.assert_normal_client_served(server.host, server.port, deadline=60, when="after the huge requests")

    # Again, over and over, while a normal client uses the server.
    stop = threading.Event()
    repeats: list[str | None] = []

    def repeat(name: str):
        for _ in range(300):
            if stop.is_set():
                return
            repeats.append(judge(name, attack(server, name)))

    attackers = [threading.Thread(target=repeat, args=(name,), daemon=True) for name in names]
    for thread in attackers:
        thread.start()
    try:
        support.assert_normal_client_served(server.host, server.port, deadline=60, when="while huge requests go on")
    finally:
        stop.set()
        for thread in attackers:
            thread.join(timeout=ANSWER_TIMEOUT + 5)
    server.assert_alive()
    problems = [p for p in repeats if p]
    assert not problems, f"{len(problems)} of {len(repeats)} repeated attacks: " + "; ".join(sorted(set(problems)))


def test_default_body_limit_is_16_KiB(server):
    body = json.dumps({"viewer": "nobody", "scrolling": True, "pad": "x" * (17 * 1024)}).encode()
    exchange = support.raw_exchange(server.host, server.port, support.request_bytes(
        "POST", "/api/viewport", {"Content-Type": "application/json", "Connection": "close"}, body))
    assert [r.status for r in exchange.responses] == [413], exchange.describe()
    assert isinstance(exchange.responses[0].json().get("error"), str)


LIMITS = {"CLASSIC_PHOTOS_MAX_HEADER_BYTES": "4096", "CLASSIC_PHOTOS_MAX_URL_LENGTH": "1024",
          "CLASSIC_PHOTOS_MAX_BODY_BYTES": "1024"}


def test_configured_limits(start_server):
    server = start_server("limits", env=LIMITS)

    def status_of(request: bytes) -> int | None:
        exchange = support.raw_exchange(server.host, server.port, request, timeout=ANSWER_TIMEOUT)
        return exchange.responses[0].status if exchange.responses else None

    def healthz(target: str = "/healthz", pad: int = 0) -> bytes:
        headers = {"Connection": "close"}
        if pad:
            headers["X-Pad"] = "a" * pad
        return support.request_bytes("GET", target, headers)

    def viewport(size: int) -> bytes:
        body = json.dumps({"viewer": "nobody", "scrolling": True}).encode()
        body += b" " * (size - len(body))  # JSON allows trailing whitespace
        return support.request_bytes("POST", "/api/viewport", {"Content-Type": "application/json",
                                                                "Connection": "close"}, body)

    got = {
        "header of 3,000 bytes (limit 4096)": (status_of(healthz(pad=3000)), 200),
        "header of 6,000 bytes (limit 4096)": (status_of(healthz(pad=6000)), 431),
        "URL of 900 bytes (limit 1024)": (status_of(healthz("/healthz?" + "a" * 890)), 200),
        "URL of 2,000 bytes (limit 1024)": (status_of(healthz("/healthz?" + "a" * 1990)), 414),
        "body of 900 bytes (limit 1024)": (status_of(viewport(900)), 404),  # unknown viewer: it was read
        "body of 2,000 bytes (limit 1024)": (status_of(viewport(2000)), 413),
    }
    wrong = {what: f"{status} (wanted {wanted})" for what, (status, wanted) in got.items() if status != wanted}
    assert not wrong, f"with {LIMITS}: {wrong}"
    server.assert_alive()
