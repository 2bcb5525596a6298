"""Previews of arrived bytes bounded per photo (issue 41, item 3): a hostile origin sends a photo of a
row on screen without a Content-Length, in 32 KB chunks, and after the JPEG's end goes on sending
zeros. Each preview decode of the bytes so far costs a decode of the whole image; the padding after
the end can show nothing new, so it must not be decoded again and again (the audit measured one
decode per 32 KB of padding: 86 s of CPU a minute with a crafted 49 MP JPEG)."""
from __future__ import annotations

import json
import threading

import pytest

import support
from trust_support import load_rows

CHUNK = 32 * 1024
PADDING = 4 * 1024 * 1024
INTERVAL = 0.04  # the origin's own pace is the scenario: a chunk at each step of a slow network
MAX_PREVIEW_DECODES = 16  # ArrivedBytes.maxAttempts


@pytest.fixture(scope="module")
def progressive_jpeg(server_factory) -> bytes:
    """photo-000, one of the sample origin's progressive JPEGs (a server start makes them)."""
    server = server_factory.start("previews-samples")
    server.stop()
    return (server_factory.workdir / "samples" / "sample-photos-v2" / "photo-000.jpg").read_bytes()


class PaddingOrigin(support.LoopbackOrigin):
    """Serves `/photos.json` (one photo) and `/hostile.jpg`: the JPEG and then `PADDING` zero bytes,
    chunked, one `CHUNK` every `INTERVAL`. Notes the server's CPU time when the padding starts and ends."""

    def __init__(self, jpeg: bytes):
        self.jpeg = jpeg
        self.server_pid: int | None = None
        self.cpu_at_padding: list[float] = []
        self.padding_sent = threading.Event()
        super().__init__("padding-origin")

    def serve(self, request):
        if request.path == "/photos.json":
            self.reply(request, json.dumps({"A hostile": self.url("/hostile.jpg")}).encode(), "application/json")
            return
        self.start_chunked(request, "image/jpeg")
        for start in range(0, len(self.jpeg), CHUNK):
            self.paced_chunk(request, self.jpeg[start:start + CHUNK])
        self.note_cpu()
        for _ in range(PADDING // CHUNK):
            self.paced_chunk(request, bytes(CHUNK))
        self.note_cpu()
        self.padding_sent.set()
        self.end_chunked(request)

    def paced_chunk(self, request, data: bytes):
        if self.stopped.wait(INTERVAL):
            raise OSError("origin stopped")
        self.chunk(request, data)

    def note_cpu(self):
        if self.server_pid is not None:
            self.cpu_at_padding.append(support.cpu_seconds(self.server_pid))


def test_padding_after_a_jpegs_end_is_not_decoded_again(server_factory, progressive_jpeg):
    # Given a row on screen whose origin sends its progressive JPEG slowly, without a length, then
    # 4 MB of zeros after its end
    origin = PaddingOrigin(progressive_jpeg)
    try:
        server = server_factory.start("previews-padding", flags=["--source", origin.url("/photos.json"),
                                                                  "--strategy", "visible"])
        origin.server_pid = server.pid
        # When a viewer has the row on screen until it is filtered
        rows = load_rows(server.host, server.port, 0, 0, timeout=120)
        assert rows[0]["state"] == "filtered", rows
        assert origin.padding_sent.is_set() and len(origin.cpu_at_padding) == 2
        # Then the previews made of its bytes are few, and the padding cost the server next to nothing
        status, _, body = support.http_request(server.host, server.port, "GET", "/api/stats")
        assert status == 200, body
        decodes = json.loads(body).get("previewDecodes")
        during_padding = origin.cpu_at_padding[1] - origin.cpu_at_padding[0]
        print(f"preview decodes {decodes}; server CPU while {PADDING // CHUNK} chunks of padding arrived: {during_padding:.2f} s")
        # The cost first: a server without the `previewDecodes` figure (main before the fix) fails on it
        assert during_padding < 0.6, f"{during_padding:.2f} s of CPU while padding after the JPEG's end arrived"
        assert decodes is not None and 1 <= decodes <= MAX_PREVIEW_DECODES, decodes
    finally:
        origin.close()
