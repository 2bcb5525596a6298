"""Helpers of the trust tests (issue 23): an origin that scripts its answers and counts requests,
and a viewer that wants rows and waits for what they end as."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import support


class ScriptedOrigin:
    """A loopback HTTP origin: `routes` maps a path to (status, headers, body); requests are counted
    per path. `drip` paths send one byte every `interval` seconds until the client goes away."""

    def __init__(self, routes: dict[str, tuple[int, dict[str, str], bytes]] | None = None):
        self.routes = dict(routes or {})
        self.drips: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                path = self.path.split("?")[0]
                with origin.lock:
                    origin.counts[path] = origin.counts.get(path, 0) + 1
                    route = origin.routes.get(path)
                    interval = origin.drips.get(path)
                if interval is not None:
                    self.send_response(200)
                    self.send_header("Content-Length", "1000000")
                    self.end_headers()
                    # The origin's own pace is the scenario: it never sends fast enough to be of use.
                    while not origin.stopped.wait(interval):
                        try:
                            self.wfile.write(b"x")
                            self.wfile.flush()
                        except OSError:
                            return
                    return
                status, headers, body = route or (404, {}, b"no such file")
                self.send_response(status)
                for name, value in dict(headers, **{"Content-Length": str(len(body))}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler, bind_and_activate=True)
        self.server.daemon_threads = True
        _, self.port = self.server.server_address
        threading.Thread(target=self.server.serve_forever, name=f"origin-{self.port}", daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def requests(self, path: str) -> int:
        with self.lock:
            return self.counts.get(path, 0)

    def close(self):
        self.stopped.set()
        self.server.shutdown()
        self.server.server_close()


def photos(host: str, port: int) -> list[dict]:
    status, _, body = support.http_request(host, port, "GET", "/api/photos")
    assert status == 200, body[:300]
    return json.loads(body)["photos"]


def load_rows(host: str, port: int, first: int, last: int, timeout: float = 120) -> dict[int, dict]:
    """A viewer that has rows first...last on screen, until each is filtered or failed, or was
    filtered and is no longer (its result could be kept nowhere: it is worked on again when next
    asked for): their last `photo` events (with `reason` and `detail` when failed), by index, each
    with `"wasFiltered"`."""
    status, _, body = support.http_request(host, port, "POST", "/api/viewers")
    assert status == 201, body
    viewer = json.loads(body)["viewer"]
    stream = support.EventStream(host, port, viewer, timeout=timeout)
    try:
        rows: dict[int, dict] = {}
        was_filtered: set[int] = set()
        reported = False
        while True:
            event = stream.next_event()
            assert event is not None, f"the stream ended; rows so far {rows}"
            name, data = event
            if name == "snapshot":
                for photo in json.loads(data)["photos"]:
                    if first <= photo["index"] <= last:
                        rows[photo["index"]] = photo
            elif name == "photo":
                photo = json.loads(data)
                if first <= photo["index"] <= last and not photo.get("preview"):
                    rows[photo["index"]] = photo
            was_filtered |= {i for i, row in rows.items() if row.get("state") == "filtered"}
            if not reported and name == "snapshot":
                body = json.dumps({"viewer": viewer, "scrolling": False, "first": first, "last": last}).encode()
                status, _, answer = support.http_request(host, port, "POST", "/api/viewport", body,
                                                         {"Content-Type": "application/json"})
                assert status == 204, answer
                reported = True
            done = [rows.get(index, {}).get("state") in ("filtered", "failed") or index in was_filtered
                    for index in range(first, last + 1)]
            if reported and all(done):
                return {i: dict(row, wasFiltered=i in was_filtered) for i, row in rows.items()}
    finally:
        stream.close()


def is_whole_image(data: bytes) -> bool:
    """A JPEG from its start marker to its end marker, or a PNG from its signature to its IEND chunk."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return data[-12:] == b"\x00\x00\x00\x00IEND\xaeB`\x82"
    return data[:2] == b"\xff\xd8" and data.rstrip(b"\x00")[-2:] == b"\xff\xd9"
