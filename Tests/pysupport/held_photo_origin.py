"""A loopback origin that serves one photo in stages, each after a gate the test opens: the bytes up
to the first cut at once, then up to each next cut once its gate is open, the rest after the last.
A test holds a download at a byte it chose, looks at what the page shows, and lets it go on, with no
bet on timing. `sent` says how many bytes have left, so a test knows the last one has not."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class HeldPhotoOrigin:
    """Serves `photo` (JPEG) at every path, held at each of `cuts` (byte offsets, increasing) until
    the matching gate is open."""

    def __init__(self, photo: bytes, cuts: list[int]):
        assert cuts == sorted(cuts) and 0 < cuts[0] and cuts[-1] < len(photo), cuts
        self.photo = photo
        self.cuts = cuts
        self.gates = [threading.Event() for _ in cuts]
        self.sent = 0
        self.closed = threading.Event()
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's naming
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(photo)))
                self.end_headers()
                start = 0
                for cut, gate in zip(cuts + [len(photo)], [None] + origin.gates):
                    # Waits in bounded steps so that close() ends the thread even with a gate shut.
                    while gate is not None and not gate.wait(0.5):
                        if origin.closed.is_set():
                            return
                    self.wfile.write(photo[start:cut])
                    self.wfile.flush()
                    start = cut
                    origin.sent = cut

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def open_gate(self, number: int):
        """Lets the bytes after cut `number` (0-based) go, up to the next cut."""
        self.gates[number].set()

    def write_source(self, path: Path) -> Path:
        """A JSON data source of one photo on this origin."""
        path.write_text(json.dumps({"Held photo": f"{self.base_url}/held.jpg"}))
        return path

    def close(self):
        self.closed.set()
        for gate in self.gates:
            gate.set()
        self.httpd.shutdown()
        self.httpd.server_close()
