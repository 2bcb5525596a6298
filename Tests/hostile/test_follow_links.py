"""Follow links and `--viewers-per-minute` (issue 57, item 3).

A follow link (`GET /?follow=CODE`) made a viewer of its address without its rate: one address made
1,248 viewers in 5 s, and four addresses kept the server full. Now a presentation's room
(`--room-size`) admits its followers without their address's token, counted once; past the room a
follow link is a new viewer like any page, and refused with a page saying why and when to try again.
Addresses are named by `X-Forwarded-For` from a trusted 127.0.0.1, as behind the compose edge."""
from __future__ import annotations

import json

import support

ROOM = 5
PER_MINUTE = 10
MAX_VIEWERS = 60


def start(start_server, name: str, per_client: int):
    return start_server(name, flags=["--max-viewers", str(MAX_VIEWERS)], env={
        "CLASSIC_PHOTOS_TRUSTED_PROXY": "127.0.0.1", "CLASSIC_PHOTOS_VIEWERS_PER_MINUTE": str(PER_MINUTE),
        "CLASSIC_PHOTOS_VIEWERS_PER_CLIENT": str(per_client), "CLASSIC_PHOTOS_ROOM_SIZE": str(ROOM)})


def present(server, client: str) -> str:
    return support.present(server.host, server.port, headers={"X-Forwarded-For": client})[1]


def follow(server, code: str, client: str):
    return support.http_request(server.host, server.port, "GET", f"/?follow={code}",
                                headers={"Accept": "text/html", "X-Forwarded-For": client})


def test_one_address_gets_the_room_then_its_rate_and_a_page_saying_why(start_server):
    # A client's share of viewers (30) is past what the room and the rate give it
    server = start(start_server, "follow-one", per_client=30)
    code = present(server, "198.51.100.1")
    statuses = []
    refusal = None
    for _ in range(40):
        status, headers, body = follow(server, code, "203.0.113.7")
        statuses.append(status)
        if status != 200 and refusal is None:
            refusal = (status, headers, body)
    admitted = statuses.count(200)
    # The room's five, then the address's ten tokens (a minute's: a few more may refill meanwhile)
    assert ROOM + PER_MINUTE <= admitted <= ROOM + PER_MINUTE + 2, statuses
    assert statuses[:ROOM + PER_MINUTE] == [200] * (ROOM + PER_MINUTE), statuses
    status, headers, body = refusal
    assert status == 429, statuses
    assert headers["content-type"].startswith("text/html"), headers
    assert int(headers["retry-after"]) >= 1, headers
    page = body.decode()
    assert "room is full" in page and "--room-size" in page and "try again in" in page, page[:2000]


def test_many_addresses_cannot_fill_the_server_through_a_follow_link(start_server):
    # A quarter of --max-viewers (15) is a client's share: before, four addresses filled the server
    server = start(start_server, "follow-many", per_client=MAX_VIEWERS // 4)
    code = present(server, "198.51.100.1")
    attackers = [f"203.0.113.{n}" for n in range(1, 5)]
    admitted = 0
    for _ in range(20):
        for client in attackers:
            admitted += follow(server, code, client)[0] == 200
    # The room once, then each address its own rate
    assert admitted <= ROOM + len(attackers) * (PER_MINUTE + 1), admitted
    # A bystander of another address still gets its page, every time
    for _ in range(5):
        status, _, body = support.http_request(server.host, server.port, "GET", "/",
                                               headers={"Accept": "text/html", "X-Forwarded-For": "192.0.2.50"})
        assert status == 200, body[:500]


def test_a_lab_presentations_followers_from_one_address_get_the_room_then_its_rate(start_server):
    # Lab followers the same way: POST /api/lab-presentations/CODE/followers made a follower (and its
    # watchers, a viewer per server lane) without the address's token, however often
    server = start(start_server, "follow-lab", per_client=60)
    presenter = {"X-Forwarded-For": "198.51.100.1", "Content-Type": "application/json"}
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/labs", headers=presenter,
                                           body=json.dumps({"lanes": [{"strategy": "eager"}, {"strategy": "browser"}], "photos": 6}).encode())
    assert status == 201, body
    lab = json.loads(body)
    streams = [support.EventStream(server.host, server.port, lane["viewer"], headers={"X-Forwarded-For": "198.51.100.1"}, timeout=60)
               for lane in lab["lanes"] if lane.get("viewer")]
    try:
        status, _, body = support.http_request(server.host, server.port, "POST", f"/api/labs/{lab['lab']}/presentation", headers=presenter)
        assert status == 201, body
        code = json.loads(body)["code"]
        statuses, refusal = [], None
        for _ in range(30):
            status, _, body = support.http_request(server.host, server.port, "POST", f"/api/lab-presentations/{code}/followers",
                                                   headers={"X-Forwarded-For": "203.0.113.9"})
            statuses.append(status)
            if status != 201 and refusal is None:
                refusal = (status, body)
        admitted = statuses.count(201)
        assert ROOM + PER_MINUTE <= admitted <= ROOM + PER_MINUTE + 2, statuses
        status, body = refusal
        assert status == 429 and b"room is full" in body and b"--room-size" in body, (status, body)
    finally:
        for stream in streams:
            stream.close()
