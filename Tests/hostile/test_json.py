"""Attack 6: malformed, huge and deeply nested JSON to `POST /api/viewport`. Each gets its 4xx
with `{"error": reason}` (the HTTP contract), never a 500, and the server stays up and serves.

The module's server takes bodies up to 128 KiB (`--max-body-bytes`), so that 100,000 nested `[`
reach the JSON parser; 1 MiB is over it (413). The default limit (16 KiB) is checked in
test_oversized.py."""
from __future__ import annotations

import json

import pytest

import support

BODY_LIMIT = 128 * 1024


@pytest.fixture(scope="module")
def server(server_factory):
    server = server_factory.start("json", env={"CLASSIC_PHOTOS_MAX_BODY_BYTES": str(BODY_LIMIT)})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def viewer(server) -> str:
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
    assert status == 201, body
    return json.loads(body)["viewer"]


def cases(viewer: str) -> dict[str, tuple[bytes, set[int]]]:
    def report(**fields) -> bytes:
        return json.dumps(dict({"viewer": viewer, "scrolling": False, "first": 0, "last": 5}, **fields)).encode()

    v = json.dumps(viewer).encode()
    return {
        "empty": (b"", {400}),
        "not-json": (b"not json", {400}),
        "truncated": (b'{"viewer": ' + v + b', "scrolling": fal', {400}),
        "array": (b"[]", {400}),
        "string": (b'"viewer"', {400}),
        "null": (b"null", {400}),
        "invalid-utf8": (b'{"viewer": "\xff\xfe", "scrolling": false, "first": 0, "last": 5}', {400}),
        "nul-bytes": (b'{"viewer": ' + v + b'\x00, "scrolling": false}', {400}),
        "lone-surrogate": (b'{"viewer": "\\ud800", "scrolling": false, "first": 0, "last": 5}', {400, 404}),
        "wrong-types": (report(scrolling="no", first="0"), {400}),
        "float-row": (report(first=1.5), {400}),
        "huge-number": (b'{"viewer": ' + v + b', "scrolling": false, "first": 0, "last": 1' + b"0" * 400 + b"}", {400, 422}),
        "exponent-overflow": (b'{"viewer": ' + v + b', "scrolling": false, "first": 0, "last": 1e400}', {400, 422}),
        "negative-row": (report(first=-1, last=-1), {400, 422}),
        "rows-past-end": (report(first=0, last=10_000_000), {422}),
        "nested-arrays-16000": (b"[" * 16_000, {400}),  # within the default 16 KiB limit too
        "nested-arrays-100000": (b"[" * 100_000, {400}),
        "nested-arrays-closed": (b"[" * 50_000 + b"]" * 50_000, {400}),
        "nested-objects": (b'{"a":' * 20_000 + b"1" + b"}" * 20_000, {400}),
        "nested-in-field": (b'{"viewer": ' + v + b', "scrolling": false, "first": ' + b"[" * 60_000 + b"}", {400}),
        "many-keys": (b"{" + b",".join(b'"k%d": %d' % (i, i) for i in range(8_000)) + b"}", {400}),
        "long-string": (b'{"viewer": "' + b"a" * 100_000 + b'", "scrolling": false, "first": 0, "last": 5}', {400, 404}),
    }


CASE_NAMES = list(cases("x"))


def post(server, body: bytes, timeout: float = 20) -> support.Exchange:
    request = support.request_bytes("POST", "/api/viewport", {
        "Content-Type": "application/json", "Content-Length": str(len(body)), "Connection": "close"}, body)
    return support.raw_exchange(server.host, server.port, request, timeout=timeout)


@pytest.mark.parametrize("name", CASE_NAMES)
def test_bad_json_is_answered_with_its_error(server, viewer, name):
    body, allowed = cases(viewer)[name]
    assert len(body) <= BODY_LIMIT
    exchange = post(server, body)
    assert exchange.responses, f"{name}: no answer; " + exchange.describe() + "; " + server.describe()
    response = exchange.responses[0]
    assert response.status in allowed, f"{name}: answered {response.status}, wanted one of {sorted(allowed)}: {response.body[:300]!r}"
    assert response.headers.get("content-type", "").startswith("application/json"), response.headers
    assert isinstance(response.json().get("error"), str), response.body[:300]
    server.assert_alive()


def test_huge_json_is_413(server, viewer):
    body = b'{"viewer": ' + json.dumps(viewer).encode() + b', "scrolling": false, "pad": "' + b"x" * (1 << 20) + b'"}'
    exchange = post(server, body)
    assert exchange.responses, "a 1 MiB body got no answer; " + exchange.describe()
    response = exchange.responses[0]
    assert response.status == 413, f"answered {response.status}: {response.body[:300]!r}"
    assert isinstance(response.json().get("error"), str), response.body[:300]
    server.assert_alive()


def test_normal_client_served_after_bad_json(server):
    support.assert_normal_client_served(server.host, server.port, when="after the bad JSON")
    server.assert_alive()
