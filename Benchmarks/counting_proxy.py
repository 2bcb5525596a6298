"""A TCP proxy on loopback in front of an origin that counts what the origin sends, per photo.

Both clients of the lazy-loading benchmark (the server's libcurl and the browser) reach the built-in
sample origin through it, so "bytes the origin sent" is measured in one place, the same way for both.
HTTP/1.1 without pipelining (neither client pipelines): each response on a connection answers the
request line seen last on it, so its bytes are put down to that path.
"""
from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from dataclasses import dataclass, field

from common import HOST

REQUEST_LINE = re.compile(rb"(?:GET|HEAD) (\S+) HTTP/1\.[01]\r\n")
CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:\s*(\d+)", re.IGNORECASE)


@dataclass
class Tally:
    """What the origin sent since the last reset."""
    bytes_sent: int = 0
    requests: dict[str, int] = field(default_factory=dict)  # path -> requests
    complete: set[str] = field(default_factory=set)  # paths answered 200/206 in full at least once
    partial: set[str] = field(default_factory=set)  # paths whose transfer was cut off


class CountingProxy:
    """Listens on a free loopback port and forwards every connection to `HOST:upstream`."""

    def __init__(self, upstream: int):
        self.upstream = upstream
        self.port = 0
        self.tally = Tally()
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> "CountingProxy":
        self._thread.start()
        server = asyncio.run_coroutine_threadsafe(asyncio.start_server(self._accept, HOST, 0), self._loop).result()
        self.port = server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            asyncio.get_running_loop().stop()
        asyncio.run_coroutine_threadsafe(stop(), self._loop)
        self._thread.join(timeout=10)

    def reset(self) -> Tally:
        """Returns the tally so far and starts a new one."""
        with self._lock:
            tally, self.tally = self.tally, Tally()
        return tally

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            origin_reader, origin_writer = await asyncio.open_connection(HOST, self.upstream)
        except OSError:
            client_writer.close()
            return
        paths: list[str] = []  # requests not yet answered, oldest first
        upward = asyncio.ensure_future(self._requests(client_reader, origin_writer, paths))
        try:
            await self._responses(origin_reader, client_writer, paths)
        finally:
            upward.cancel()
            await asyncio.gather(upward, return_exceptions=True)
            for writer in (client_writer, origin_writer):
                writer.close()

    async def _requests(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, paths: list[str]) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            pending = b""
            while data := await reader.read(65536):
                pending += data
                # Bodiless requests: every head ends at a blank line.
                *heads, pending = pending.split(b"\r\n\r\n")
                for head in heads:
                    match = REQUEST_LINE.match(head + b"\r\n")
                    if not match:
                        continue
                    path = match.group(1).decode("latin-1")
                    paths.append(path)
                    with self._lock:
                        self.tally.requests[path] = self.tally.requests.get(path, 0) + 1
                writer.write(data)
                await writer.drain()
            writer.write_eof()

    async def _responses(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, paths: list[str]) -> None:
        head = b""
        remaining = None  # body bytes of the current response still to come; None while reading a head
        path, status = "", 0
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                with self._lock:
                    self.tally.bytes_sent += len(data)
                writer.write(data)
                await writer.drain()
                while data:
                    if remaining is None:
                        head += data
                        end = head.find(b"\r\n\r\n")
                        if end < 0:
                            data = b""
                            continue
                        status = int(head.split(b" ", 2)[1])
                        length = CONTENT_LENGTH.search(head[:end + 2])
                        remaining = int(length.group(1)) if length else 0
                        data, head = head[end + 4:], b""
                        path = paths.pop(0) if paths else "?"
                    taken = min(remaining, len(data))
                    remaining -= taken
                    data = data[taken:]
                    if remaining == 0:
                        if status in (200, 206):
                            with self._lock:
                                self.tally.complete.add(path)
                        remaining = None
        if remaining and status in (200, 206):
            with self._lock:
                self.tally.partial.add(path)
