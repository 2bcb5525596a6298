"""Shared pieces of the benchmarks: starting the server, a small HTTP/SSE client on raw asyncio
sockets (loopback only), /proc readings and percentiles.

Every wait here is bounded; nothing asserts a time. Figures are printed, not judged.
"""
from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = Path(os.environ.get("BENCH_SCRATCH", ROOT / ".build-bench"))
BINARY = SCRATCH / "release" / "classic-photos"
HOST = "127.0.0.1"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def log(*parts: object) -> None:
    print(*parts, flush=True)


def cache_dir() -> Path:
    """Where the sample photos are generated once for every server the benchmarks start."""
    path = Path(os.environ.get("BENCH_CACHE_DIR", Path(tempfile.gettempdir()) / "classic-photos-bench-cache"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def run_cache_dir() -> str:
    """A fresh --cache-dir for one server: the shared sample photos linked in, nothing else (so no
    filtered image survives from an earlier run)."""
    run = Path(tempfile.mkdtemp(prefix="classic-photos-bench-run-"))
    shared = cache_dir()
    for entry in shared.iterdir():
        if entry.name.startswith("sample-photos"):
            (run / entry.name).symlink_to(entry)
    return str(run)


def make_samples(count: int) -> None:
    """Makes the first `count` sample photos in the shared cache, once (`classic-photos samples`; a
    server would make each as a row asks for it, inside the figures a benchmark takes)."""
    subprocess.run([str(BINARY), "samples", "--photo-count", str(count), "--cache-dir", str(cache_dir())],
                   cwd=ROOT, stdout=subprocess.DEVNULL, check=True, timeout=1800)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


# ---------------------------------------------------------------------------------------- numbers

def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0...100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def ms(seconds: float) -> str:
    return "n/a" if seconds != seconds else f"{seconds * 1000:.0f} ms"


def mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def table(header: list[str], rows: list[list[object]]) -> str:
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    line = lambda row: "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
    return "\n".join([line(cells[0]), line(["-" * w for w in widths])] + [line(r) for r in cells[1:]])


# ---------------------------------------------------------------------------------------- /proc

def rss_bytes(pid: int) -> int:
    """VmRSS of `pid` from /proc/PID/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of `pid` (all its threads)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def machine() -> str:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = 0
    with contextlib.suppress(OSError):
        mem = int(Path("/proc/meminfo").read_text().split()[1]) * 1024
    kernel = os.uname().release
    return f"{os.cpu_count()} cores ({cpu}), {mem / 2**30:.0f} GiB, Linux {kernel}"


# ---------------------------------------------------------------------------------------- server

# A benchmark's load client is one address: the per-client connection limit (64 by default) would
# refuse it. An environment variable, so that an older build that does not know the limit still starts.
LOAD_CLIENT_ENV = {"CLASSIC_PHOTOS_CONNECTIONS_PER_CLIENT": "1000000"}

# The page every server is given: this tree's, or another commit's beside its binary (`page_options`).
PUBLIC_DIR = ROOT / "Public"
TEMPLATES_DIR = ROOT / "Templates"


def page_options(parser) -> None:
    """Adds --public-dir and --templates-dir to a script's `parser`: the page's folders for the servers
    it starts (an older commit's page beside that commit's --binary); `use_page` applies them."""
    parser.add_argument("--public-dir", type=Path, help="the page's static files (default: Public/)")
    parser.add_argument("--templates-dir", type=Path, help="the page's templates (default: Templates/)")


def use_page(args) -> None:
    """Takes --public-dir and --templates-dir (`page_options`), and counts every server's answers
    (`check_answers`)."""
    global PUBLIC_DIR, TEMPLATES_DIR
    if args.public_dir:
        PUBLIC_DIR = args.public_dir.resolve()
    if args.templates_dir:
        TEMPLATES_DIR = args.templates_dir.resolve()
    check_answers()


# Every server's answers by route and status, read from its /metrics as it stops, once
# `check_answers` is called: a run with an answer not 2xx is invalid, and says so at exit.
ANSWERS: dict = {"servers": 0, "answers": 0, "not_2xx": {}, "unread": 0, "checking": False}


def check_answers() -> None:
    if not ANSWERS["checking"]:
        ANSWERS["checking"] = True
        atexit.register(say_answers)


def count_answers(port: int) -> None:
    """Adds the answers of the server on `port` (`http_requests_total` by route and status) to ANSWERS."""
    try:
        status, body = http("GET", port, "/metrics", timeout=10)
        if status != 200:
            raise OSError(f"/metrics answered {status}")
    except (OSError, ValueError) as error:
        ANSWERS["unread"] += 1
        log(f"answers of the server on port {port} not read: {error}")
        return
    ANSWERS["servers"] += 1
    for line in body.decode().splitlines():
        if not line.startswith("http_requests_total{"):
            continue
        labels, value = line[len("http_requests_total{"):].rsplit("} ", 1)
        fields = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        ANSWERS["answers"] += int(float(value))
        if float(value) > 0 and not fields.get("status", "").startswith("2"):
            key = f"{fields.get('route')} {fields.get('status')}"
            ANSWERS["not_2xx"][key] = ANSWERS["not_2xx"].get(key, 0) + int(float(value))


def say_answers() -> None:
    servers, not_2xx, unread = ANSWERS["servers"], ANSWERS["not_2xx"], ANSWERS["unread"]
    if not_2xx or unread:
        log(f"INVALID run: answers not 2xx {not_2xx or '(none)'}; servers whose answers were not read: {unread}")
    elif servers:
        log(f"answers: {ANSWERS['answers']} from {servers} servers, all 2xx")


@dataclass
class Server:
    """A `classic-photos serve` on a free loopback port, stopped on exit."""
    args: list[str] = field(default_factory=list)
    process: subprocess.Popen | None = None
    port: int = 0
    log_path: str = ""
    cache: str = ""
    env: dict | None = None

    @property
    def pid(self) -> int:
        assert self.process
        return self.process.pid

    def __enter__(self) -> "Server":
        if not BINARY.exists():
            sys.exit(f"{BINARY} is missing: build it with scripts/bench.sh (or swift build -c release "
                     f"--scratch-path .build-bench --product classic-photos)")
        self.port = free_port()
        make_samples(int(self.args[self.args.index("--photo-count") + 1]) if "--photo-count" in self.args else 300)
        self.cache = run_cache_dir()
        command = [str(BINARY), "serve", "--host", HOST, "--port", str(self.port), "--cache-dir", self.cache,
                   "--public-dir", str(PUBLIC_DIR), "--templates-dir", str(TEMPLATES_DIR), *self.args]
        log_file = tempfile.NamedTemporaryFile("w+", prefix="classic-photos-bench-", suffix=".log", delete=False)
        self.log_path = log_file.name
        # stdout goes to the log too: the server's URL line is block-buffered on a pipe.
        self.process = subprocess.Popen(command, stdout=log_file, stderr=log_file, cwd=ROOT,
                                        env={**os.environ, **LOAD_CLIENT_ENV, **(self.env or {})})
        self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 900) -> None:
        """Waits until the photo list has loaded."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process and self.process.poll() is not None:
                sys.exit(f"server exited with {self.process.returncode}; see {self.log_path}")
            with contextlib.suppress(OSError, ValueError):
                status, body = http("GET", self.port, "/api/photos")
                if status == 200 and json.loads(body)["status"] == "ready":
                    return
            time.sleep(0.5)
        sys.exit("photo list never became ready")

    def stats(self) -> dict:
        status, body = http("GET", self.port, "/api/stats")
        return json.loads(body)

    def __exit__(self, *exc: object) -> None:
        if self.process and ANSWERS["checking"]:
            if self.process.poll() is None:
                count_answers(self.port)
            else:
                ANSWERS["unread"] += 1
                log(f"the server on port {self.port} exited with {self.process.returncode} before its answers were read")
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self.cache:
            shutil.rmtree(self.cache, ignore_errors=True)


CEILING_PACKAGE = ROOT / "Benchmarks" / "Ceiling"


@contextlib.contextmanager
def ceiling(mode: str, root: Path, tls: tuple[Path, Path] | None = None, gzip: bool = False, ready=None):
    """SwiftNIO alone serving `root`'s files (`Benchmarks/Ceiling`, built here on first use): the stack's
    ceiling beside our server and nginx. `mode`: h1, h2 (a child channel per stream) or h2frames (answered
    from the connection's frames). Yields its port; `ready(port)` says it answers."""
    binary = CEILING_PACKAGE / ".build" / "release" / "NIOCeiling"
    if not binary.exists():
        log("building Benchmarks/Ceiling (release) ...")
        subprocess.run(["swift", "build", "-c", "release", "--package-path", str(CEILING_PACKAGE)], check=True)
    port = free_port()
    command = [str(binary), "--mode", mode, "--port", str(port), "--root", str(root)]
    if tls:
        command += ["--cert", str(tls[0]), "--key", str(tls[1])]
    if gzip:
        command.append("--gzip")
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError):
                if (ready or (lambda p: http("GET", p, "/thumbnail.jpg", timeout=1)[0] == 200))(port):
                    break
            if time.monotonic() > deadline or process.poll() is not None:
                raise SystemExit(f"nio-ceiling {mode} did not start")
            time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def http(method: str, port: int, path: str, body: object | None = None, timeout: float = 30) -> tuple[int, bytes]:
    """One blocking HTTP/1.1 request on its own connection."""
    import http.client
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


async def ahttp(method: str, port: int, path: str, body: object | None = None, timeout: float = 30,
                source: str | None = None) -> tuple[int, bytes]:
    """One asynchronous HTTP/1.1 request on its own connection (Connection: close), from loopback
    address `source` if given."""
    async def run() -> tuple[int, bytes]:
        reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0) if source else None)
        try:
            data = b"" if body is None else json.dumps(body).encode()
            head = (f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
            writer.write(head.encode() + data)
            await writer.drain()
            status_line = await reader.readline()
            status = int(status_line.split()[1])
            length = None
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.decode().partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            payload = await (reader.readexactly(length) if length is not None else reader.read())
            return status, payload
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
    return await asyncio.wait_for(run(), timeout)


async def new_viewer(port: int) -> str:
    status, body = await ahttp("POST", port, "/api/viewers")
    if status != 201:
        raise RuntimeError(f"POST /api/viewers -> {status} {body[:200]!r}")
    return json.loads(body)["viewer"]


async def post_viewport(port: int, viewer: str, scrolling: bool, first: int | None = None,
                        last: int | None = None) -> int:
    body: dict = {"viewer": viewer, "scrolling": scrolling}
    if first is not None:
        body.update(first=first, last=last)
    status, _ = await ahttp("POST", port, "/api/viewport", body)
    return status


# ---------------------------------------------------------------------------------------- SSE

@contextlib.contextmanager
def behind_sample_origin(latency_ms: int = 150, bandwidth: int = 2_000_000):
    """A server whose list is the photos of another one's built-in sample origin, with the origin's
    latency and bandwidth per transfer (the physical floor of first_pixels.py): yields the server, the
    photos (`/api/photos`) and the origin's own server (its cache holds the sample files)."""
    with Server(["--sample-latency-ms", str(latency_ms), "--sample-bandwidth", str(bandwidth)]) as origin_host:
        photos = json.loads(http("GET", origin_host.port, "/api/photos")[1])["photos"]
        with tempfile.TemporaryDirectory(prefix="classic-photos-origin-list-") as folder:
            source = Path(folder) / "photos.json"
            source.write_text(json.dumps({p["name"]: p["url"] for p in photos}))
            with Server(["--source", str(source), "--allow-source-host", HOST]) as server:
                yield server, photos, origin_host


@dataclass
class Event:
    name: str
    data: str
    id: str | None
    arrived: float  # time.monotonic() when the bytes were read


class EventWatcher(asyncio.Protocol):
    """An event stream read as cheaply as a thousand of them beside the server on its two cores allow: a
    visitor's browser parses its events on its own machine, so here only one event name (`watch`) is
    found in each read, its data line parsed as JSON and passed on with the read's time
    (`on_event(data, arrived)`); a shared stream's `stream` event resolves `named` with its id; the rest
    is skipped unparsed. A read that ends inside a watched event keeps it for the next."""

    STREAM = b"event: stream\ndata: "

    def __init__(self, path: str, port: int, watch: str | None = None,
                 on_event: Callable[[dict, float], None] | None = None, named: asyncio.Future | None = None):
        self.request = f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode()
        self.mark = f"event: {watch}\ndata: ".encode() if watch else None
        self.on_event = on_event
        self.named = named
        self.tail = b""
        self.transport = None
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport) -> None:
        self.transport = transport
        transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(exc)

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        data = self.tail + data if self.tail else data
        self.tail = b""
        if self.named is not None and not self.named.done():
            at = data.find(self.STREAM)
            end = data.find(b"\n", at + len(self.STREAM)) if at >= 0 else -1
            if end < 0:
                self.tail = data[-4096:]
                return
            self.named.set_result(json.loads(data[at + len(self.STREAM):end])["stream"])
        if self.mark is None:
            return
        start = data.find(self.mark)
        while start >= 0:
            end = data.find(b"\n", start + len(self.mark))
            if end < 0:
                self.tail = data[start:]
                return
            self.on_event(json.loads(data[start + len(self.mark):end]), now)
            start = data.find(self.mark, end)
        # The mark itself may be cut by this read: keep the bytes that could begin it.
        self.tail = data[-len(self.mark):]

    def close(self) -> None:
        if self.transport:
            self.transport.close()


class SSEProtocol(asyncio.Protocol):
    """Reads one `GET /events` stream as the page's EventSource does; calls `on_event` per event.

    Cheap enough for a thousand streams in one process: one monotonic reading per read, events split
    on blank lines, data left as text (callers parse what they need)."""

    def __init__(self, path: str, port: int, on_event: Callable[[Event], None], read: bool = True):
        self.request = f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode()
        self.on_event = on_event
        self.buffer = b""
        self.headers_done = False
        self.chunked = False
        self.chunk_buffer = b""
        self.status = 0
        self.closed = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.bytes = 0
        self.read = read

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self.request)
        if not self.read:
            self.transport.pause_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(exc)

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        self.bytes += len(data)
        if not self.headers_done:
            self.buffer += data
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1").lower()
            self.status = int(head.split()[1])
            self.chunked = "transfer-encoding: chunked" in head
            self.headers_done = True
            rest, self.buffer = self.buffer[end + 4:], b""
            if not rest:
                return
            data = rest
        if self.chunked:
            data = self.dechunk(data)
        self.buffer += data
        while True:
            end = self.buffer.find(b"\n\n")
            if end < 0:
                break
            block, self.buffer = self.buffer[:end], self.buffer[end + 2:]
            name, ident, lines = "message", None, []
            for line in block.decode().split("\n"):
                if line.startswith("data:"):
                    lines.append(line[5:].lstrip(" ") if len(line) > 5 else "")
                elif line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("id:"):
                    ident = line[3:].strip()
            if lines:
                self.on_event(Event(name, "\n".join(lines), ident, now))

    def dechunk(self, data: bytes) -> bytes:
        self.chunk_buffer += data
        out = []
        while True:
            end = self.chunk_buffer.find(b"\r\n")
            if end < 0:
                break
            size = int(self.chunk_buffer[:end].split(b";")[0] or b"0", 16)
            if len(self.chunk_buffer) < end + 2 + size + 2:
                break
            out.append(self.chunk_buffer[end + 2:end + 2 + size])
            self.chunk_buffer = self.chunk_buffer[end + 2 + size + 2:]
        return b"".join(out)

    def close(self) -> None:
        if self.transport:
            self.transport.close()


async def open_events(port: int, viewer: str, on_event: Callable[[Event], None], read: bool = True,
                      receive_buffer: int | None = None) -> SSEProtocol:
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.setblocking(False)
    await loop.sock_connect(sock, (HOST, port))
    _, protocol = await loop.create_connection(
        lambda: SSEProtocol(f"/events?viewer={viewer}", port, on_event, read), sock=sock)
    return protocol  # type: ignore[return-value]
