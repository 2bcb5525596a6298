"""HTTP/2 over TLS for the hostile tests: a client on the `h2` library (`H2Client`) and a raw frame
writer for what `h2` refuses to send (`RawH2`)."""
from __future__ import annotations

import socket
import ssl
import struct
import time
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

from support import next_event
from tls_support import tls_connect, trusting_nothing

# Frame types and the error codes the tests look for (RFC 9113).
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9
ENHANCE_YOUR_CALM = 0xB
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def receive(sock: ssl.SSLSocket, timeout: float) -> bytes | None:
    """What arrives within `timeout`: None if nothing, b"" once the server closed (or reset) the connection."""
    sock.settimeout(max(0.01, timeout))
    try:
        return sock.recv(65536)
    except (socket.timeout, ssl.SSLWantReadError):
        return None
    except OSError:
        return b""


@dataclass
class Stream:
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytearray = field(default_factory=bytearray)
    ended: bool = False
    reset: int | None = None  # the RST_STREAM error code, if reset
    parsed: int = 0  # bytes of `body` already parsed as server-sent events


class H2Client:
    """One HTTP/2 connection (ALPN `h2` over TLS) driven from the calling thread."""

    def __init__(self, host: str, port: int, context: ssl.SSLContext | None = None, timeout: float = 10,
                 settings: dict | None = None, source: str | None = None):
        self.host, self.port = host, port
        self.sock = tls_connect(host, port, context or trusting_nothing(["h2"]), timeout, source)
        assert self.sock.selected_alpn_protocol() == "h2", f"ALPN gave {self.sock.selected_alpn_protocol()!r}"
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        if settings:
            self.conn.update_settings(settings)
        self.streams: dict[int, Stream] = {}
        self.goaway: tuple[int, bytes] | None = None
        self.closed = False
        self.remote_settings: dict[int, int] = {}
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.closed:
            try:
                self.sock.sendall(data)
            except OSError:
                self.closed = True

    def request(self, method: str, path: str, headers: list[tuple[str, str]] | None = None,
                body: bytes | None = None, end: bool = True) -> int:
        stream_id = self.conn.get_next_available_stream_id()
        fields = [(":method", method), (":path", path), (":scheme", "https"),
                  (":authority", f"{self.host}:{self.port}"), *(headers or [])]
        self.conn.send_headers(stream_id, fields, end_stream=end and body is None)
        if body is not None:
            # In frames of at most the server's frame size (a body within the server's window: tests send small ones).
            size = self.conn.max_outbound_frame_size
            chunks = [body[start:start + size] for start in range(0, len(body), size)] or [b""]
            for number, chunk in enumerate(chunks):
                self.conn.send_data(stream_id, chunk, end_stream=end and number == len(chunks) - 1)
        self.streams[stream_id] = Stream()
        self.flush()
        return stream_id

    def pump(self, timeout: float) -> None:
        """Reads what the server sent within `timeout` and applies it."""
        if self.closed:
            return
        data = receive(self.sock, timeout)
        if data is None:
            return
        if not data:
            self.closed = True
            return
        if self.goaway is not None:
            return  # after GOAWAY only the end of the connection is awaited; `h2` takes no more frames
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError as error:
            self.goaway = self.goaway or (-1, f"client-side protocol error: {error}".encode())
            return
        for event in events:
            self._apply(event)
        self.flush()

    def _apply(self, event):
        stream = self.streams.get(getattr(event, "stream_id", 0) or 0)
        if isinstance(event, h2.events.ResponseReceived) and stream:
            stream.headers = {k: v for k, v in event.headers}
            stream.status = int(stream.headers[":status"])
        elif isinstance(event, h2.events.DataReceived):
            if stream:
                stream.body += event.data
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded) and stream:
            stream.ended = True
        elif isinstance(event, h2.events.StreamReset) and stream:
            stream.reset = int(event.error_code)
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.goaway = (int(event.error_code), event.additional_data or b"")
        elif isinstance(event, h2.events.RemoteSettingsChanged):
            self.remote_settings.update({int(k): v.new_value for k, v in event.changed_settings.items()})

    def wait(self, predicate, timeout: float) -> bool:
        """Pumps until `predicate()` holds (True) or the connection ends or `timeout` passes (False)."""
        deadline = time.monotonic() + timeout
        while not predicate():
            left = deadline - time.monotonic()
            if left <= 0 or self.closed:
                return predicate()
            self.pump(min(left, 1.0))
        return True

    def finished(self, stream_id: int) -> bool:
        stream = self.streams[stream_id]
        return stream.ended or stream.reset is not None

    def fetch(self, method: str, path: str, timeout: float = 30, **kwargs) -> Stream:
        stream_id = self.request(method, path, **kwargs)
        self.wait(lambda: self.finished(stream_id), timeout)
        return self.streams[stream_id]

    def events(self, stream_id: int):
        """The server-sent events that arrived complete on `stream_id` since the last call."""
        stream = self.streams[stream_id]
        while True:
            end = stream.body.find(b"\n\n", stream.parsed)
            if end < 0:
                return
            lines = iter(stream.body[stream.parsed:end + 2].decode(errors="replace").splitlines(keepends=True))
            stream.parsed = end + 2
            event = next_event(lambda: next(lines, ""))
            if event is not None:
                yield event

    def cancel(self, stream_id: int):
        self.conn.reset_stream(stream_id)
        self.flush()

    def close(self):
        try:
            if not self.closed:
                self.conn.close_connection()
                self.flush()
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        self.sock.close()


def frame(kind: int, flags: int, stream_id: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream_id) + payload


class RawH2:
    """Frames written as bytes (after the preface and an empty SETTINGS) and the server's frames
    read back by type: for attacks the `h2` library refuses to make."""

    def __init__(self, host: str, port: int, timeout: float = 10):
        self.sock = tls_connect(host, port, trusting_nothing(["h2"]), timeout)
        assert self.sock.selected_alpn_protocol() == "h2"
        self.buffer = b""
        self.goaway: tuple[int, bytes] | None = None
        self.resets: list[tuple[int, int]] = []
        self.closed = False
        self.settings_seen = False
        self.send(PREFACE + frame(SETTINGS, 0, 0))
        # The server's limits apply once its SETTINGS are acknowledged: wait for them first.
        deadline = time.monotonic() + timeout
        while not self.settings_seen and not self.closed and time.monotonic() < deadline:
            self.read(0.2)

    def send(self, data: bytes) -> bool:
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            self.closed = True
            return False

    def read(self, timeout: float) -> None:
        """Reads for up to `timeout`, noting GOAWAY, RST_STREAM and the end; acks the server's SETTINGS."""
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            data = receive(self.sock, deadline - time.monotonic())
            if data is None:
                return
            if not data:
                self.closed = True
                return
            self.buffer += data
            while len(self.buffer) >= 9:
                length = int.from_bytes(self.buffer[:3], "big")
                if len(self.buffer) < 9 + length:
                    break
                kind, flags = self.buffer[3], self.buffer[4]
                stream_id = int.from_bytes(self.buffer[5:9], "big") & 0x7FFFFFFF
                payload = self.buffer[9:9 + length]
                self.buffer = self.buffer[9 + length:]
                if kind == GOAWAY:
                    self.goaway = (int.from_bytes(payload[4:8], "big"), payload[8:])
                elif kind == RST_STREAM:
                    self.resets.append((stream_id, int.from_bytes(payload[:4], "big")))
                elif kind == SETTINGS and not flags & 1:
                    self.settings_seen = True
                    self.send(frame(SETTINGS, 1, 0))

    def wait_ended(self, timeout: float, closed: bool = False) -> bool:
        """True once the server sent GOAWAY or closed the connection (with `closed`: closed it)
        within `timeout`."""
        deadline = time.monotonic() + timeout
        ended = lambda: self.closed or (not closed and self.goaway is not None)  # noqa: E731
        while not ended() and time.monotonic() < deadline:
            self.read(min(1.0, deadline - time.monotonic()))
        return ended()

    def close(self):
        self.sock.close()
