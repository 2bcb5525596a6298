"""Start cold (issue 37) from outside the trust boundary: a follow code, a follower and a stranger cannot start
the list cold, nor can the presenter while someone on the server does not follow it (they would lose their
work); a presenter who asks again and again is refused with when to retry, and the server goes on serving."""
from __future__ import annotations

import json
import secrets

import support

JSON = {"Content-Type": "application/json"}


def post(server, path: str, body) -> tuple[int, dict, bytes]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return support.http_request(server.host, server.port, "POST", path, body=data, headers=JSON)


def new_viewer(server) -> str:
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
    assert status == 201, body
    return json.loads(body)["viewer"]


def test_only_the_presenter_starts_cold_and_only_while_everyone_else_follows(start_server):
    server = start_server("start-cold")
    presenter = new_viewer(server)
    status, _, body = post(server, "/api/presentations", {"viewer": presenter})
    assert status == 201, body
    code = json.loads(body)["code"]
    cold = f"/api/presentations/{code}/cold-starts"

    # A stranger looking at rows of its own, not following: even the presenter is refused, with the reason
    stranger = new_viewer(server)
    status, _, body = post(server, "/api/viewport", {"viewer": stranger, "scrolling": False, "first": 0, "last": 3})
    assert status == 204, body
    status, _, body = post(server, cold, {"viewer": presenter})
    assert status == 409 and b"would take away their work" in body, body

    # Once it follows, nobody but the presenter can: not the follow code, the follower, a guess, a malformed body
    status, _, body = post(server, f"/api/presentations/{code}/followers", {"viewer": stranger})
    assert status == 200, body
    for viewer in (code, stranger, secrets.token_hex(16), presenter.upper(), ""):
        status, _, body = post(server, cold, {"viewer": viewer})
        assert status in (400, 404), (viewer, status, body)
    for path in (f"/api/presentations/{secrets.token_hex(16)}/cold-starts", "/api/presentations/..%2F..%2Fapi%2Fviewers/cold-starts",
                 f"/api/presentations/{code.upper()}/cold-starts"):
        status, _, body = post(server, path, {"viewer": presenter})
        assert status == 404, (path, status, body)
    for body in (b"", b"{", b"[]", json.dumps({"viewer": 7}).encode(), json.dumps({"viewer": [presenter]}).encode()):
        status, _, answer = post(server, cold, body)
        assert 400 <= status < 500 and status != 429, (body, status, answer)

    # The presenter can, once; asked again and again at once, each is refused with when to retry
    status, _, body = post(server, cold, {"viewer": presenter})
    assert status == 200, body
    assert json.loads(body)["coldStarts"] == 1
    for _ in range(50):
        status, headers, body = post(server, cold, {"viewer": presenter})
        assert status == 429 and int(headers["retry-after"]) > 0, (status, body)
    support.assert_normal_client_served(server.host, server.port, when="after 50 cold starts asked at once")
