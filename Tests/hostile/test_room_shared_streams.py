"""A room of 200 behind one address on the pages' own path, with the shipped defaults (issue 57, item 4).

Each page holds its browser's shared event stream (`Public/event-hub.js`): `GET /events/shared`, its
`stream` event naming it, then `POST /api/streams/ID/viewers` for the page's viewer, and the events of
its viewers on it. With `--shared-streams-per-client` 8 the ninth browser behind one address was
refused (a raw 429 its page took for "the server cannot be reached"), and `--connections-per-client`
64 would have refused the 65th. Now a presentation's room brings its address a stream and connections
for each follower in it: 200 clients doing what the hub does all open, join and hear the presenter's
move. The presenter's count is of followers that receive: a follower whose page never opened a stream
is not in it."""
from __future__ import annotations

import asyncio
import json
import re
import time

import support

ROOM = 200
STOP = (20, 25)
# The defaults a public server ships with (the hostile suite lifts them for its normal client)
SHIPPED = {"CLASSIC_PHOTOS_CONNECTIONS_PER_CLIENT": "64", "CLASSIC_PHOTOS_VIEWERS_PER_MINUTE": "60",
           "CLASSIC_PHOTOS_VIEWERS_PER_CLIENT": "1250", "CLASSIC_PHOTOS_SHARED_STREAMS_PER_CLIENT": "8"}


async def request(host: str, port: int, method: str, path: str, body: dict | None = None,
                  accept: str = "application/json") -> tuple[int, bytes]:
    data = json.dumps(body).encode() if body is not None else b""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write((f"{method} {path} HTTP/1.1\r\nHost: x\r\nAccept: {accept}\r\nConnection: close\r\n"
                      f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n").encode() + data)
        await writer.drain()
        answer = await reader.read()
    finally:
        writer.close()
    head, _, rest = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), rest


class Events:
    """An event stream read as `EventSource` does: `(name, data)` from `next()`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, host: str, port: int, path: str) -> tuple[int, "Events | bytes"]:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split()[1])
        if status != 200:
            body = await reader.read(4096)
            writer.close()
            return status, body
        return status, cls(reader, writer)

    async def next(self) -> tuple[str, str]:
        name, data = "message", []
        while True:
            line = (await self.reader.readline()).decode()
            if not line:
                raise ConnectionError("the stream ended")
            line = line.rstrip("\r\n")
            # Chunk sizes of the chunked body are not event lines
            if re.fullmatch(r"[0-9a-fA-F]+", line):
                continue
            if line == "":
                if data:
                    return name, "\n".join(data)
                name = "message"
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)

    def close(self):
        self.writer.close()


async def browser(host: str, port: int, code: str, moved: asyncio.Event) -> Events:
    """One browser of the room: its page, then what its event hub does (the shared stream, `stream`
    names it, the page's viewer joins); `moved` once the presenter's stop reached its viewer."""
    status, page = await request(host, port, "GET", f"/?follow={code}", accept="text/html")
    assert status == 200, page[:300]
    viewer = re.search(rb'data-viewer="([^"]+)"', page).group(1).decode()
    status, events = await Events.open(host, port, "/events/shared")
    assert status == 200, f"a room's browser's shared stream got {status}: {events[:300]!r}"
    name, data = await events.next()
    assert name == "stream", (name, data)
    stream = json.loads(data)["stream"]
    status, body = await request(host, port, "POST", f"/api/streams/{stream}/viewers", {"viewer": viewer})
    assert status == 204, body

    async def read():
        try:
            while True:
                name, data = await events.next()
                if name == "presentation":
                    told = json.loads(data)
                    assert told["viewer"] == viewer
                    if told["data"].get("first") == STOP[0] and not told["data"].get("scrolling"):
                        moved.set()
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass

    asyncio.get_running_loop().create_task(read())
    return events


def test_a_room_of_200_behind_one_address_on_shared_streams_with_the_shipped_defaults(start_server):
    server = start_server("room-shared", env=SHIPPED)
    host, port = server.host, server.port

    async def scenario():
        status, body = await request(host, port, "POST", "/api/viewers")
        presenter = json.loads(body)["viewer"]
        status, body = await request(host, port, "POST", "/api/presentations", {"viewer": presenter})
        assert status == 201, body
        code = json.loads(body)["code"]
        status, own = await Events.open(host, port, f"/events?viewer={presenter}")
        assert status == 200, own
        counts = asyncio.Queue()

        async def hear_counts():
            while True:
                name, data = await own.next()
                if name == "presentation":
                    await counts.put(json.loads(data)["followers"])

        hearing = asyncio.get_running_loop().create_task(hear_counts())

        async def count_reaches(wanted: int, seconds: float = 30) -> list[int]:
            heard = []
            async with asyncio.timeout(seconds):
                while not heard or heard[-1] != wanted:
                    heard.append(await counts.get())
            return heard

        # When 200 browsers behind the presenter's address open the follow link, in tens
        moved = [asyncio.Event() for _ in range(ROOM)]
        rooms = []
        for start in range(0, ROOM, 10):
            rooms += await asyncio.gather(*(browser(host, port, code, moved[n]) for n in range(start, start + 10)))
        # Then the presenter's count says 200 once their streams are open
        await count_reaches(ROOM)
        status, body = await request(host, port, "POST", "/api/viewport",
                                     {"viewer": presenter, "scrolling": False, "first": STOP[0], "last": STOP[1]})
        assert status == 204, body
        stopped = time.monotonic()

        async def heard(event: asyncio.Event) -> float:
            await event.wait()
            return (time.monotonic() - stopped) * 1000

        async with asyncio.timeout(30):
            lags = sorted(await asyncio.gather(*(heard(event) for event in moved)))
        # The figure for BENCHMARKS (with -s): from the presenter's stop answered to each browser's hearing it
        print(f"{ROOM} browsers behind one address heard the presenter's stop: p50 {lags[len(lags) // 2]:.0f} ms, "
              f"p95 {lags[int(len(lags) * 0.95) - 1]:.0f} ms, last {lags[-1]:.0f} ms")

        # A 201st page past the room (its address's token) whose stream never opens is not counted:
        # when one of the room's browsers closes, the count goes to 199
        status, page = await request(host, port, "GET", f"/?follow={code}", accept="text/html")
        assert status == 200, page[:300]
        rooms.pop().close()
        heard = await count_reaches(ROOM - 1)
        assert ROOM + 1 not in heard, heard
        hearing.cancel()
        own.close()
        for events in rooms:
            events.close()

    asyncio.run(scenario())
    server.assert_alive()
