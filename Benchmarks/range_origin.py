"""An origin on loopback for the resume comparison of scroll_traces.py: the sample photos served as
nginx serves files (strong ETag, Last-Modified, `Range: bytes=N-` answered 206 with Content-Range
when If-Range matches, 416 past the end), or with Range ignored, at the sample origin's latency and
bandwidth per transfer. It counts what it sends, so the figures do not rest on the server's own.
"""
from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

from common import HOST, cache_dir, log, make_samples

SLICE_SECONDS = 0.05  # the sample origin's ThrottledBody sends ~50 ms slices too


def sample_photos(rows: int) -> list[Path]:
    """The first `rows` sample photos, generated once into the shared bench cache by a server run."""
    def listed() -> list[Path]:
        folders = sorted(p for p in cache_dir().iterdir() if p.name.startswith("sample-photos"))
        files = sorted(f for f in folders[-1].iterdir() if f.suffix in (".jpg", ".png")) if folders else []
        return files[:rows]

    if len(listed()) < rows * 0.9:  # a few entries are mis-named on purpose and never generated
        log(f"making {rows} sample photos in {cache_dir()} ...")
        make_samples(rows)
    files = listed()
    if not files:
        raise SystemExit(f"no sample photos in {cache_dir()}")
    return files


@dataclass
class RangeOrigin:
    """Serves `files` at /images/NAME and a JSON data source at /photos.json, on a thread of its own
    (the server's start is waited for synchronously); `honour_ranges` False answers every request
    with the whole file (an origin without range support)."""
    files: list[Path]
    latency: float
    bandwidth: int
    honour_ranges: bool
    port: int = 0
    requests: int = 0
    ranged: int = 0
    partial: int = 0
    bytes_sent: int = 0
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _bodies: dict[str, tuple[bytes, str, str]] = field(default_factory=dict)

    def __enter__(self) -> "RangeOrigin":
        for path in self.files:
            stat = path.stat()
            etag = f'"{int(stat.st_mtime):x}-{stat.st_size:x}"'  # nginx's form
            self._bodies[path.name] = (path.read_bytes(), etag, email.utils.formatdate(stat.st_mtime, usegmt=True))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        server = asyncio.run_coroutine_threadsafe(asyncio.start_server(self._serve, HOST, 0), self._loop).result()
        self.port = server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop and self._thread:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    @property
    def source(self) -> str:
        return f"http://{HOST}:{self.port}/photos.json"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            path = head[0].split(" ")[1]
            headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in head[1:] if ":" in line)}
            if path == "/photos.json":
                listing = {p.stem: f"http://{HOST}:{self.port}/images/{p.name}" for p in self.files}
                await self._send(writer, 200, {"Content-Type": "application/json"}, json.dumps(listing).encode())
                return
            name = path.removeprefix("/images/")
            if name not in self._bodies:
                await self._send(writer, 404, {}, b"not found\n")
                return
            self.requests += 1
            body, etag, modified = self._bodies[name]
            status, start = 200, 0
            wanted = headers.get("range", "")
            if wanted:
                self.ranged += 1
            if self.honour_ranges and wanted.startswith("bytes=") and wanted.endswith("-") \
                    and headers.get("if-range", etag) in (etag, modified):
                start = int(wanted[len("bytes="):-1])
                status = 206 if start < len(body) else 416
            extra = {"ETag": etag, "Last-Modified": modified, "Accept-Ranges": "bytes",
                     "Content-Type": "image/png" if name.endswith(".png") else "image/jpeg"}
            if status == 416:
                await self._send(writer, 416, {**extra, "Content-Range": f"bytes */{len(body)}"}, b"")
                return
            if status == 206:
                self.partial += 1
                extra["Content-Range"] = f"bytes {start}-{len(body) - 1}/{len(body)}"
            await asyncio.sleep(self.latency)
            await self._send(writer, status, extra, body[start:], throttled=True)

    async def _send(self, writer: asyncio.StreamWriter, status: int, headers: dict, body: bytes,
                    throttled: bool = False) -> None:
        reason = {200: "OK", 206: "Partial Content", 404: "Not Found", 416: "Range Not Satisfiable"}[status]
        lines = [f"HTTP/1.1 {status} {reason}", f"Content-Length: {len(body)}", "Connection: close"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        step = max(1, int(self.bandwidth * SLICE_SECONDS)) if throttled else len(body) or 1
        try:
            for offset in range(0, len(body), step):
                piece = body[offset:offset + step]
                writer.write(piece)
                await writer.drain()
                self.bytes_sent += len(piece)
                if throttled:
                    await asyncio.sleep(SLICE_SECONDS)
        finally:
            writer.close()
