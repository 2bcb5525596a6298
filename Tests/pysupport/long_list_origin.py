"""An origin on loopback for lists of any length: `/photos.json` lists `rows` photos (`p000000` ...),
each at `/images/pNNNNNN.png`, all the same small PNG (the repository's golden sepia thumbnail, so
every download decodes). Images of rows from `hold_from` on wait while `gate` is closed: a test
holds the work it starts there in flight (pending and running operations stay as many as the server
allows) while the rows above are served at once (a normal client's), and opens the gate to let it end. Used by the hostile tests and Benchmarks/list_length.py with `--source`.
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
IMAGE = (REPO / "Tests" / "PhotoCodecsTests" / "Resources" / "sepia-thumbnail-golden.png").read_bytes()


class LongListOrigin:
    """Serves a list of `rows` photos on 127.0.0.1 until `close()`; with `hold_from` None nothing is held."""

    def __init__(self, rows: int, hold_from: int | None = None):
        self.rows = rows
        self.hold_from = rows if hold_from is None else hold_from
        self.gate = threading.Event()
        self.requests = 0
        self._lock = threading.Lock()
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # noqa: N802 - the http.server name
                if self.path == "/photos.json":
                    self._send(200, "application/json", origin.listing)
                    return
                if not self.path.startswith("/images/"):
                    self._send(404, "text/plain", b"not found\n")
                    return
                with origin._lock:
                    origin.requests += 1
                row = int(self.path[len("/images/p"):].split(".")[0] or 0)
                # Waits in bounded steps so that close() ends the thread even with the gate shut.
                while row >= origin.hold_from and not origin.gate.wait(0.5):
                    if origin.closed.is_set():
                        return
                self._send(200, "image/png", IMAGE)

            def _send(self, status: int, kind: str, body: bytes):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the server gave up on the transfer

        self.closed = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # A transfer the server gave up on (a cancelled row) is no error of the origin's.
        self._server.handle_error = lambda request, address: None
        self.port = self._server.server_address[1]
        base = f"http://127.0.0.1:{self.port}/images/"
        self.listing = json.dumps({f"p{i:06d}": f"{base}p{i:06d}.png" for i in range(rows)}).encode()
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def source(self) -> str:
        """The `--source` URL of the list."""
        return f"http://127.0.0.1:{self.port}/photos.json"

    def open_gate(self):
        self.gate.set()

    def close(self):
        self.closed.set()
        self.gate.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "LongListOrigin":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
