"""The normal client of the suite's README done over one HTTP/2 connection: page, viewer, event
stream, viewport, the row `filtered`, its thumbnail, all multiplexed."""
from __future__ import annotations

import json
import time

from h2client import H2Client, Stream
from support import NormalClientThread, row_filtered


class H2NormalClient:
    """The suite's normal client over one HTTP/2 connection; `check()` raises AssertionError naming
    the step that was not served. `deadline` is only the failure bound."""

    def __init__(self, host: str, port: int, row: int = 0, deadline: float = 60):
        self.host, self.port, self.row, self.deadline = host, port, row, deadline
        self.step = "connect"
        self.histories: dict[int, list] = {}

    def check(self) -> None:
        end = time.monotonic() + self.deadline
        left = lambda: max(0.1, end - time.monotonic())  # noqa: E731
        client = H2Client(self.host, self.port, timeout=left())
        try:
            self._expect(client, "GET", "/", 200, left, b"data-viewer=")
            viewer = json.loads(self._expect(client, "POST", "/api/viewers", 201, left).body)["viewer"]
            self.step = "GET /events"
            events = client.request("GET", f"/events?viewer={viewer}", [("accept", "text/event-stream")], end=True)
            self._event(client, events, left, lambda name, data: name == "source", "the `source` event")
            body = json.dumps({"viewer": viewer, "scrolling": False, "first": self.row, "last": self.row + 5}).encode()
            self._expect(client, "POST", "/api/viewport", 204, left, body=body,
                         headers=[("content-type", "application/json")])

            def filtered(name: str, data: str) -> bool:
                return row_filtered(name, data, self.row)

            self._event(client, events, left, filtered, f"row {self.row} `filtered`")
            client.cancel(events)
            thumbnail = self._expect(client, "GET", f"/photos/{self.row}/thumbnail", 200, left)
            assert thumbnail.headers.get("content-type", "").startswith("image/") and thumbnail.body, \
                f"HTTP/2 normal client: the thumbnail is not an image: {thumbnail.headers}"
        finally:
            client.close()

    def _expect(self, client: H2Client, method: str, path: str, status: int, left, marker: bytes | None = None,
                **kwargs) -> Stream:
        self.step = f"{method} {path}"
        stream = client.fetch(method, path, timeout=left(), **kwargs)
        assert stream.status == status and stream.ended, \
            f"HTTP/2 normal client: {method} {path} gave {stream.status} (wanted {status}), ended {stream.ended}, " \
            f"reset {stream.reset}, GOAWAY {client.goaway}: {bytes(stream.body[:300])!r}"
        assert marker is None or marker in stream.body, f"HTTP/2 normal client: {path} is not the page"
        return stream

    def _event(self, client: H2Client, stream_id: int, left, predicate, what: str):
        """Waits for an event `predicate` accepts among every event of the stream so far: one step's
        wait must not use up what the next step looks for (the server writes the events queued together
        in one DATA frame, so `source` and the `snapshot` after it arrive at once)."""
        self.step = what
        history = self.histories.setdefault(stream_id, [])
        found = [event for event in history if predicate(*event)]

        def seen() -> bool:
            for event in client.events(stream_id):
                history.append(event)
                if predicate(*event):
                    found.append(event)
            return bool(found) or client.finished(stream_id)

        client.wait(seen, left())
        assert found, f"HTTP/2 normal client: no {what} (stream status {client.streams[stream_id].status}, " \
                      f"reset {client.streams[stream_id].reset}, GOAWAY {client.goaway})"


def h2_normal_client_thread(host: str, port: int, deadline: float = 60) -> NormalClientThread:
    """One HTTP/2 normal-client check beside an attack; its `error` is None once it was served."""
    return NormalClientThread(host, port, client=H2NormalClient(host, port, deadline=deadline))
