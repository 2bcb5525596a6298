"""A room behind one address (issue 37): a presenter shares its follow link with 200 people whose traffic
all comes from one address (one NAT). Every one of them gets the page and follows: followers are the
presenter's audience, not new viewers of that address, so `--viewers-per-minute` (60) does not turn the
61st away; the address's own pages are still limited; a follow code drives nothing. The room needs more
connections from its one address than a single client is given by default (`--connections-per-client`
64: each browser holds its event stream), which the README says to raise for a room behind one NAT."""
from __future__ import annotations

import json
import re
import threading

import support

ROOM = 200
# `--viewers-per-client`'s default: a quarter of `--max-viewers` (5,000).
DEFAULT_VIEWERS_PER_CLIENT = 1250
STOP = (20, 25)


def test_a_room_of_200_behind_one_address_all_get_the_page_and_follow(start_server):
    # The defaults a public server has for pages and viewers (the hostile suite lifts them for its normal client)
    server = start_server("room", env={"CLASSIC_PHOTOS_CONNECTIONS_PER_CLIENT": "512", "CLASSIC_PHOTOS_VIEWERS_PER_MINUTE": "60",
                                       "CLASSIC_PHOTOS_VIEWERS_PER_CLIENT": str(DEFAULT_VIEWERS_PER_CLIENT)})
    host, port = server.host, server.port
    presenter, code = support.present(host, port)

    # When 200 people behind one address open the follow link
    followers = []
    for n in range(ROOM):
        status, _, page = support.http_request(host, port, "GET", f"/?follow={code}", headers={"Accept": "text/html"})
        assert status == 200, f"follower {n + 1} of {ROOM} got {status}: {page[:300]!r}"
        followers.append(re.search(rb'data-viewer="([^"]+)"', page).group(1).decode())
    assert len(set(followers)) == ROOM

    # Then each follows: its stream opens with the presentation, and the presenter's stop moves every one
    moved = [threading.Event() for _ in followers]
    opened = [threading.Event() for _ in followers]
    streams = []

    def read(n: int, stream: support.EventStream):
        while True:
            try:
                event = stream.next_event()
            except (OSError, AttributeError, ValueError):  # closed at the end of the test
                return
            if event is None:
                return
            name, data = event
            if name == "presentation":
                payload = json.loads(data)
                assert payload["code"] == code and payload["role"] == "follower"
                opened[n].set()
                if payload.get("first") == STOP[0]:
                    moved[n].set()
                    return

    threads = []
    for n, viewer in enumerate(followers):
        stream = support.EventStream(host, port, viewer, timeout=60)
        assert stream.status == 200, f"follower {n + 1}'s stream got {stream.status}"
        streams.append(stream)
        thread = threading.Thread(target=read, args=(n, stream), daemon=True)
        thread.start()
        threads.append(thread)
    try:
        assert all(event.wait(60) for event in opened), f"{sum(not e.is_set() for e in opened)} streams never said they follow"
        status, _, body = support.http_request(host, port, "POST", "/api/viewport",
                                               body=json.dumps({"viewer": presenter, "scrolling": False, "first": STOP[0], "last": STOP[1]}).encode(),
                                               headers={"Content-Type": "application/json"})
        assert status == 204, body
        assert all(event.wait(60) for event in moved), f"{sum(not e.is_set() for e in moved)} of {ROOM} followers never moved"
    finally:
        for stream in streams:
            stream.close()

    support.assert_normal_client_served(host, port, when="after the room followed")
    # And the address's own new pages are still limited
    statuses = [support.http_request(host, port, "GET", "/", headers={"Accept": "text/html"})[0] for _ in range(90)]
    assert 429 in statuses, statuses
    # A follow code is not a viewer: it reports nothing
    status, _, _ = support.http_request(host, port, "POST", "/api/viewport",
                                        body=json.dumps({"viewer": code, "scrolling": False, "first": 0, "last": 3}).encode(),
                                        headers={"Content-Type": "application/json"})
    assert status == 404
