"""A loopback origin that serves one photo in stages, each after a gate the test opens: the bytes up
to the first cut at once, then up to each next cut once its gate is open, the rest after the last.
A test holds a download at a byte it chose, looks at what the page shows, and lets it go on, with no
bet on timing. `sent` says how many bytes have left, so a test knows the last one has not. With `pace`,
the bytes up to the first cut go at that many a second, in small steady writes, as a throttled
origin sends them, rather than at once."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class HeldPhotoOrigin:
    """Serves `photo` (JPEG) at every path, held at each of `cuts` (byte offsets, increasing) until
    the matching gate is open; the bytes before the first cut at `pace` bytes a second if given."""

    STEP = 4096  # bytes a paced write sends

    def __init__(self, photo: bytes, cuts: list[int], pace: int | None = None):
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
                    step = HeldPhotoOrigin.STEP if pace and gate is None else cut - start
                    began = time.monotonic()
                    for offset in range(start, cut, step):
                        if pace and gate is None:
                            # Each write at its time on the steady pace (no drift from slow writes).
                            time.sleep(max(0.0, began + (offset - start) / pace - time.monotonic()))
                        self.wfile.write(photo[offset:min(offset + step, cut)])
                        self.wfile.flush()
                        origin.sent = min(offset + step, cut)
                    start = cut

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
