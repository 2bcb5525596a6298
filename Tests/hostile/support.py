"""Helpers of the hostile-client tests: the normal client, raw-socket requests, measures of a
process from /proc, and loopback origins for the server to fetch from."""
from __future__ import annotations

import errno
import http.client
import json
import os
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# -- the server process, from /proc

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime (fields 14 and 15)


def _status_bytes(pid: int, field_name: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field_name + ":"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field_name} for process {pid}")


def rss_bytes(pid: int) -> int:
    """Resident memory now (VmRSS)."""
    return _status_bytes(pid, "VmRSS")


def peak_rss_bytes(pid: int) -> int:
    """The most resident memory the process has had (VmHWM, its high-water mark)."""
    return _status_bytes(pid, "VmHWM")


class PeakMemory:
    """Samples a server's resident memory in a thread of its own from its making until `stop()`:
    `before` is read as it is made, `peak` is the most seen since, `growth` their difference."""

    def __init__(self, server, interval: float = 0.1):
        self.server = server
        self.interval = interval
        self.before = server.rss_bytes()
        self.peak = self.before
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    @property
    def growth(self) -> int:
        return self.peak - self.before

    def _sample(self):
        while not self._stop.is_set() and self.server.alive():
            try:
                self.peak = max(self.peak, self.server.rss_bytes())
            except (OSError, AssertionError):
                return
            self._stop.wait(self.interval)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


# -- a loopback origin (what the server fetches from)

class LoopbackOrigin:
    """An HTTP/1.1 origin on a loopback port, each request served on a thread of its own: a subclass
    answers GETs in `serve(request)` (a `BaseHTTPRequestHandler`) with `reply`, or `start_chunked`,
    `chunk` and `end_chunked`. A client that goes away ends its request quietly; `stopped` is set
    by `close`, for a request that waits to see it."""

    def __init__(self, name: str = "origin"):
        self.stopped = threading.Event()
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                try:
                    origin.serve(self)
                except OSError:
                    return  # the server closed the transfer, or the origin is closing

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        _, self.port = self.server.server_address
        threading.Thread(target=self.server.serve_forever, name=f"{name}-{self.port}", daemon=True).start()

    def serve(self, request: BaseHTTPRequestHandler) -> None:
        raise NotImplementedError

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    @staticmethod
    def reply(request: BaseHTTPRequestHandler, body: bytes, content_type: str, status: int = 200) -> None:
        request.send_response(status)
        request.send_header("Content-Type", content_type)
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)

    @staticmethod
    def start_chunked(request: BaseHTTPRequestHandler, content_type: str) -> None:
        """A 200 whose body follows in chunks, without a length; the connection closes after it."""
        request.send_response(200)
        request.send_header("Content-Type", content_type)
        request.send_header("Transfer-Encoding", "chunked")
        request.send_header("Connection", "close")
        request.end_headers()

    @staticmethod
    def chunk(request: BaseHTTPRequestHandler, data: bytes) -> None:
        request.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        request.wfile.flush()

    @staticmethod
    def end_chunked(request: BaseHTTPRequestHandler) -> None:
        request.wfile.write(b"0\r\n\r\n")
        request.wfile.flush()

    def close(self):
        self.stopped.set()
        self.server.shutdown()
        self.server.server_close()


# -- plain HTTP (the normal client's side)

def family_of(host: str) -> int:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def http_request(host: str, port: int, method: str, path: str, body: bytes | None = None,
                 headers: dict[str, str] | None = None, timeout: float = 10, tls: bool = False):
    """One request on a connection of its own: (status, headers as a lower-cased dict, body).
    `tls`: over HTTPS (HTTP/1.1), without checking the certificate."""
    if tls:
        connection = http.client.HTTPSConnection(host, port, timeout=timeout, context=ssl._create_unverified_context())
    else:
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    finally:
        connection.close()


def present(host: str, port: int, headers: dict[str, str] | None = None) -> tuple[str, str]:
    """Makes a viewer and has it present (`POST /api/presentations`): its viewer id and follow code."""
    status, _, body = http_request(host, port, "POST", "/api/viewers", headers=headers)
    assert status == 201, body
    viewer = json.loads(body)["viewer"]
    status, _, body = http_request(host, port, "POST", "/api/presentations", body=json.dumps({"viewer": viewer}).encode(),
                                   headers={"Content-Type": "application/json", **(headers or {})})
    assert status == 201, body
    return viewer, json.loads(body)["code"]


class NormalClientError(AssertionError):
    pass


class NormalClient:
    """What a person's browser does, as the HTTP contract says: loads the page, gets a viewer,
    opens its event stream, reports a viewport and fetches the thumbnail of a row it shows.

    `headers` go with every request (an `X-Forwarded-For` stands for another client address
    behind a trusted proxy). `check()` raises NormalClientError naming the step that was not served;
    `deadline` (seconds) is only the failure bound."""

    def __init__(self, host: str, port: int, headers: dict[str, str] | None = None, row: int = 0,
                 deadline: float = 60):
        self.host = host
        self.port = port
        self.headers = dict(headers or {})
        self.row = row
        self.deadline = deadline
        self.step = "start"

    def _remaining(self) -> float:
        left = self._end - time.monotonic()
        if left <= 0:
            raise NormalClientError(f"normal client: not served within {self.deadline:.0f} s at step: {self.step}")
        return left

    def _request(self, method: str, path: str, body: dict | None = None):
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            return http_request(self.host, self.port, method, path, data, headers, timeout=self._remaining())
        except (OSError, http.client.HTTPException) as error:
            raise NormalClientError(f"normal client: {method} {path} failed at step {self.step}: {error!r}") from None

    def _expect(self, method: str, path: str, status: int, body: dict | None = None):
        self.step = f"{method} {path}"
        got, headers, data = self._request(method, path, body)
        if got != status:
            raise NormalClientError(f"normal client: {method} {path} answered {got} (wanted {status}): {data[:300]!r}")
        return headers, data

    def check(self) -> None:
        self._end = time.monotonic() + self.deadline
        _, page = self._expect("GET", "/", 200)
        if b"data-viewer=" not in page:
            raise NormalClientError(f"normal client: GET / is not the page: {page[:300]!r}")
        _, data = self._expect("POST", "/api/viewers", 201)
        viewer = json.loads(data)["viewer"]
        self.step = "GET /events"
        stream = EventStream(self.host, self.port, viewer, self.headers, timeout=self._remaining())
        try:
            stream.set_timeout(self._remaining())
            if stream.status != 200:
                raise NormalClientError(f"normal client: GET /events answered {stream.status}")
            self.step = "the stream's `source` event"
            self._next_event(stream, lambda name, data: name == "source")
            self._expect("POST", "/api/viewport", 204,
                         {"viewer": viewer, "scrolling": False, "first": self.row, "last": self.row + 5})
            self.step = f"row {self.row} `filtered` on the stream"

            def filtered(name: str, data: str) -> bool:
                return row_filtered(name, data, self.row)

            self._next_event(stream, filtered)
        finally:
            stream.close()
        headers, data = self._expect("GET", f"/photos/{self.row}/thumbnail", 200)
        if not headers.get("content-type", "").startswith("image/") or not data:
            raise NormalClientError(f"normal client: the thumbnail is not an image: {headers}")

    def _next_event(self, stream: "EventStream", predicate):
        try:
            while True:
                stream.set_timeout(self._remaining())
                event = stream.next_event()
                if event is None:
                    raise NormalClientError(f"normal client: the event stream ended before {self.step}")
                if predicate(*event):
                    return event
        except (OSError, http.client.HTTPException) as error:
            self._remaining()
            raise NormalClientError(f"normal client: the event stream failed before {self.step}: {error!r}") from None


def assert_normal_client_served(host: str, port: int, headers: dict[str, str] | None = None,
                                deadline: float = 60, when: str = ""):
    try:
        NormalClient(host, port, headers=headers, deadline=deadline).check()
    except NormalClientError as error:
        raise AssertionError(f"{when}: {error}" if when else str(error)) from None


class NormalClientThread(threading.Thread):
    """Runs one normal-client check beside an attack; `error` is None when it was served."""

    def __init__(self, host: str, port: int, headers: dict[str, str] | None = None, deadline: float = 60,
                 client=None):
        super().__init__(daemon=True)
        # `client`: another normal client with a `check()` (the HTTP/2 one).
        self.client = client or NormalClient(host, port, headers=headers, deadline=deadline)
        self.error: str | None = "not finished"

    def run(self):
        try:
            self.client.check()
            self.error = None
        except Exception as error:  # noqa: BLE001 - reported by the test
            self.error = str(error)


def next_event(readline):
    """The next server-sent event, (name, data), from lines `readline()` gives ("" at the end), or None."""
    name, data = "message", []
    while True:
        line = readline()
        if not line:
            return None
        text = line.rstrip("\r\n")
        if text == "":
            if data:
                return name, "\n".join(data)
            name = "message"
            continue
        if text.startswith(":"):
            continue
        key, _, value = text.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if key == "event":
            name = value
        elif key == "data":
            data.append(value)


def row_filtered(name: str, data: str, row: int) -> bool:
    """Whether this event says `row` is filtered (a `snapshot` with it filtered, or its `photo` event)."""
    if name == "snapshot":
        return any(p.get("index") == row and p.get("state") == "filtered" for p in json.loads(data).get("photos", []))
    if name == "photo":
        photo = json.loads(data)
        return photo.get("index") == row and photo.get("state") == "filtered"
    return False


class EventStream:
    """`GET /events?viewer=ID` read with http.client (which undoes the chunked framing), parsed as
    server-sent events: `next_event()` gives (event name, data) or None at the end."""

    def __init__(self, host: str, port: int, viewer: str, headers: dict[str, str] | None = None,
                 timeout: float = 30):
        self.connection = http.client.HTTPConnection(host, port, timeout=timeout)
        self.connection.request("GET", f"/events?viewer={viewer}",
                                headers=dict(headers or {}, Accept="text/event-stream"))
        self.response = self.connection.getresponse()
        self.status = self.response.status

    def set_timeout(self, seconds: float):
        if self.connection.sock is not None:
            self.connection.sock.settimeout(seconds)

    def next_event(self):
        return next_event(lambda: self.response.readline().decode(errors="replace"))

    def close(self):
        self.connection.close()


class SharedStream:
    """`GET /events/shared` from `client` (by `X-Forwarded-For`): its status and, when open, its id (its
    `stream` event); its body when refused."""

    def __init__(self, server, client: str, timeout: float = 30):
        self.connection = http.client.HTTPConnection(server.host, server.port, timeout=timeout)
        self.connection.request("GET", "/events/shared", headers={"Accept": "text/event-stream", "X-Forwarded-For": client})
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.id = None
        if self.status == 200:
            name, data = self.next_event()
            assert name == "stream", (name, data)
            self.id = json.loads(data)["stream"]
        else:
            self.body = self.response.read().decode(errors="replace")

    def next_event(self):
        return next_event(lambda: self.response.readline().decode(errors="replace"))

    def ended(self) -> bool:
        """Reads to the stream's end (its events skipped): true once the server closed it."""
        try:
            while self.next_event() is not None:
                pass
            return True
        except (http.client.IncompleteRead, ConnectionError):
            return True  # closed mid-chunk
        except TimeoutError:
            return False

    def close(self):
        self.connection.close()


# -- raw sockets (the attacker's side)

def connect(host: str, port: int, timeout: float = 10, rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket(family_of(host), socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(timeout)
    sock.connect((host, port))
    return sock


@dataclass
class Response:
    status: int
    headers: dict[str, str]  # lower-cased names; repeated headers joined with ", "
    body: bytes
    raw_head: bytes = b""

    def json(self):
        return json.loads(self.body)


@dataclass
class Exchange:
    """What came back on one raw connection."""
    data: bytes = b""
    closed: bool = False  # the server closed (EOF) or reset the connection
    reset: bool = False
    timed_out: bool = False
    responses: list[Response] = field(default_factory=list)
    rest: bytes = b""  # bytes after the last whole response

    def describe(self) -> str:
        statuses = [r.status for r in self.responses]
        how = "reset" if self.reset else "closed" if self.closed else "still open" if self.timed_out else "?"
        return f"responses {statuses}, connection {how}, {len(self.rest)} stray bytes {self.rest[:80]!r}"


def parse_responses(data: bytes, head_only: list[bool] | None = None) -> tuple[list[Response], bytes]:
    """Splits bytes into whole HTTP/1.1 responses; returns them and what is left (a partial one or
    bytes that are not a response). `head_only[i]` says response i answers a HEAD (no body)."""
    responses = []
    while data:
        end = data.find(b"\r\n\r\n")
        if end < 0 or not data.startswith(b"HTTP/"):
            break
        head = data[:end].decode("latin-1")
        lines = head.split("\r\n")
        try:
            status = int(lines[0].split(" ", 2)[1])
        except (IndexError, ValueError):
            break
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            key = name.strip().lower()
            headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
        rest = data[end + 4:]
        index = len(responses)
        if (head_only and index < len(head_only) and head_only[index]) or status in (204, 304) or status < 200:
            body = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            body, rest, complete = _dechunk(rest)
            if not complete:
                break
        elif "content-length" in headers:
            length = int(headers["content-length"])
            if len(rest) < length:
                break
            body, rest = rest[:length], rest[length:]
        else:
            body, rest = rest, b""  # until close
        responses.append(Response(status, headers, body, data[:end]))
        data = rest
    return responses, data


def _dechunk(data: bytes):
    body = b""
    while True:
        line_end = data.find(b"\r\n")
        if line_end < 0:
            return body, data, False
        size = int(data[:line_end].split(b";")[0] or b"0", 16)
        if size == 0:
            trailer_end = data.find(b"\r\n", line_end + 2)
            if trailer_end < 0:
                return body, data, False
            return body, data[trailer_end + 2:], True
        start = line_end + 2
        if len(data) < start + size + 2:
            return body, data, False
        body += data[start:start + size]
        data = data[start + size + 2:]


def read_until_close(sock: socket.socket, deadline: float, exchange: Exchange | None = None,
                     enough=None) -> Exchange:
    """Reads until the server closes the connection, `deadline` (monotonic) passes, or
    `enough(data)` is true."""
    exchange = exchange or Exchange()
    chunks = [exchange.data]
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            exchange.timed_out = True
            break
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            exchange.timed_out = True
            break
        except OSError as error:
            if error.errno in (errno.ECONNRESET, errno.EPIPE, errno.ECONNABORTED):
                exchange.closed = exchange.reset = True
                break
            raise
        if not chunk:
            exchange.closed = True
            break
        chunks.append(chunk)
        if enough is not None and enough(b"".join(chunks)):
            break
    exchange.data = b"".join(chunks)
    return exchange


def send_quietly(sock: socket.socket, data: bytes) -> bool:
    """Sends what the server will take; False when it closed or reset the connection meanwhile."""
    try:
        sock.sendall(data)
        return True
    except OSError:  # reset, broken pipe, timeout, or closed by the reader meanwhile
        return False


def raw_exchange(host: str, port: int, request: bytes, timeout: float = 10,
                 head_only: list[bool] | None = None, enough=None) -> Exchange:
    """Sends `request` on a connection of its own (from a thread, so that a server answering
    before it has read everything is seen) and reads until close or `timeout`."""
    sock = connect(host, port, timeout=timeout)
    sender = None
    try:
        deadline = time.monotonic() + timeout
        sender = threading.Thread(target=send_quietly, args=(sock, request), daemon=True)
        sender.start()
        exchange = read_until_close(sock, deadline, enough=enough)
        exchange.responses, exchange.rest = parse_responses(exchange.data, head_only)
        return exchange
    finally:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        # The sender may still be in a send: its descriptor is closed only after it has returned
        # (the shutdown ends the send), so the number is never reused under it.
        if sender is not None:
            sender.join(timeout)
        sock.close()


def request_bytes(method: str, target: str, headers: dict[str, str] | None = None, body: bytes = b"",
                  host: str = "localhost") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    headers = dict(headers or {})
    if body and "Content-Length" not in headers and "Transfer-Encoding" not in headers:
        headers["Content-Length"] = str(len(body))
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def wait_until(predicate, timeout: float, interval: float = 0.1) -> bool:
    """Polls `predicate` until it holds or `timeout` passes (the failure bound)."""
    end = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(interval)


def idle(host: str, port: int) -> bool:
    """Whether no operation is queued or running on the server."""
    status, _, body = http_request(host, port, "GET", "/api/stats")
    stats = json.loads(body) if status == 200 else {}
    return all(stats.get(queue, {}).get(state, 1) == 0
               for queue in ("downloads", "filtrations") for state in ("pending", "executing"))


def settle_first_screen(host: str, port: int) -> None:
    """Loads the page once and waits until the work its load started has ended: the page carries its
    first screen's rows as they stand (and the photo list their states), so two answers compared
    byte for byte must come from a server at rest."""
    http_request(host, port, "GET", "/")
    assert wait_until(lambda: idle(host, port), 60), "the first screen's work never ended"
