"""Fixtures for the browser tests: a real `classic-photos serve` on loopback and headless Chromium.

The server binary is `.build/debug/classic-photos` (override with CLASSIC_PHOTOS_BIN). Each server
gets a free loopback port and serves its own built-in sample origin; all servers of a session share
one temporary cache directory, so the sample photos are generated once.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pysupport"))
from server_process import read_address_line, stop_process  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
BINARY = Path(os.environ.get("CLASSIC_PHOTOS_BIN", REPO / ".build" / "debug" / "classic-photos"))
CHROMIUM = os.environ.get("CHROMIUM_BIN", shutil.which("chromium") or "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", shutil.which("chromedriver") or "/usr/bin/chromedriver")
# Seconds for the server to generate its sample photos and load its list (the first start of a
# session generates the photos; later ones reuse them).
STARTUP_TIMEOUT = float(os.environ.get("CLASSIC_PHOTOS_STARTUP_TIMEOUT", "240"))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EventStream:
    """A viewer's `GET /events` read line by line from a socket, as the page's EventSource does."""

    def __init__(self, server: "Server", viewer: str, timeout: float = 60):
        self.timeout = timeout
        self.sock = socket.create_connection(("127.0.0.1", server.port), timeout=timeout)
        self.sock.sendall(f"GET /events?viewer={viewer} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        self.buffer = b""

    def events(self):
        """Yields (name, data) for each event until the stream ends (chunk framing is skipped:
        the size lines never start with `event:` or `data:`)."""
        name = None
        while True:
            while b"\n" not in self.buffer:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\n", 1)
            text = line.decode(errors="replace").rstrip("\r")
            if text == "0":
                return  # the last chunk: the server ended the stream
            if text.startswith("event: "):
                name = text[7:]
            elif text.startswith("data: ") and name:
                yield name, text[6:]
                name = None

    def wait_for(self, predicate, what: str):
        # Bounded as a whole, not only per read: the stream's heartbeats keep every read short, so a
        # wait for an event that never comes would otherwise never end.
        deadline = time.monotonic() + self.timeout
        for name, data in self.events():
            if predicate(name, data):
                return name, data
            if time.monotonic() > deadline:
                pytest.fail(f"no {what} within {self.timeout:.0f} s on the event stream")
        pytest.fail(f"the event stream ended before {what}")

    def close(self):
        self.sock.close()


def new_viewer(server: "Server", timeout: float = 10) -> str:
    status, body = server.request("POST", "/api/viewers", timeout=timeout)
    assert status == 201, body
    return body["viewer"]


class Server:
    """One `classic-photos serve` process."""

    def __init__(self, workdir: Path, cache_dir: Path, name: str, photo_count: int, latency_ms: int,
                 bandwidth: int, strategy: str = "prefetch", prefetch: int = 3, source: str | None = None,
                 env: dict[str, str] | None = None):
        self.name = name
        self.photo_count = photo_count
        self.strategy = strategy
        self.prefetch = prefetch
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.stdout_path = workdir / f"{name}.stdout.log"
        self.stderr_path = workdir / f"{name}.stderr.log"
        self.command = [
            str(BINARY), "serve",
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--photo-count", str(photo_count),
            "--sample-latency-ms", str(latency_ms),
            "--sample-bandwidth", str(bandwidth),
            "--strategy", strategy,
            "--prefetch", str(prefetch),
            "--cache-dir", str(cache_dir),
        ] + (["--source", source] if source else [])
        if source and not source.startswith("http"):
            # A data source file whose photos are on a loopback origin: only a named one is fetched from.
            self.command += ["--allow-source-host", "127.0.0.1"]
        # Every tab and lab of the test browser is one client (127.0.0.1): its shares of the server's
        # viewers, labs and shared streams are the whole (the per-client shares have hostile tests of their own).
        env = dict(dict(os.environ, CLASSIC_PHOTOS_CACHE_DIR=str(cache_dir), CLASSIC_PHOTOS_VIEWERS_PER_CLIENT="1000000",
                        CLASSIC_PHOTOS_LABS_PER_CLIENT="64", CLASSIC_PHOTOS_SHARED_STREAMS_PER_CLIENT="1000000"), **(env or {}))
        self._stdout = open(self.stdout_path, "wb")
        self._stderr = open(self.stderr_path, "wb")
        # stdout carries one line, the address, once the server listens: what `wait_ready` waits for.
        self.process = subprocess.Popen(
            self.command, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=self._stderr)

    # -- output

    def stderr(self, limit: int = 4000) -> str:
        try:
            text = self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""
        return text[-limit:]

    def describe(self) -> str:
        return f"server {self.name} ({' '.join(self.command)}), stderr:\n{self.stderr() or '(empty)'}"

    # -- HTTP

    def request(self, method: str, path: str, body=None, timeout: float = 10):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw = response.read()
                return response.status, (json.loads(raw) if raw else None)
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                return error.code, json.loads(raw) if raw else None
            except ValueError:
                return error.code, raw.decode(errors="replace")

    def get_json(self, path: str):
        status, body = self.request("GET", path)
        assert status == 200, f"GET {path} answered {status}: {body}"
        return body

    def photos(self) -> list[dict]:
        body = self.get_json("/api/photos")
        assert body["status"] == "ready", body
        return body["photos"]

    def stats(self) -> dict:
        return self.get_json("/api/stats")

    # -- life cycle

    def _deadline(self, timeout: float, what: str):
        deadline = time.monotonic() + timeout

        def remaining() -> float:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"the server was not {what} within {timeout:.0f} s; " + self.describe(), pytrace=False)
            return left
        return remaining

    def wait_listening(self, timeout: float = STARTUP_TIMEOUT):
        """Waits for the address line on stdout: the server listens (its list may still be loading)."""
        read_address_line(self.process, self._deadline(timeout, "listening"), self.describe, self._stdout)

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT, listening: bool = False):
        """Waits for the address line on stdout (the server listens; skipped when `listening`), then
        for the `source` event that says the photo list is ready, on an event stream (no polling)."""
        remaining = self._deadline(timeout, "ready")
        if not listening:
            read_address_line(self.process, remaining, self.describe, self._stdout)
        while True:
            # A stream open while the list loads is closed when it is ready (a fresh snapshot is
            # due), so the next one starts with the outcome.
            # (A first start generates the sample photos, which can hold up its answers meanwhile.)
            stream = EventStream(self, new_viewer(self, timeout=remaining()), timeout=remaining())
            try:
                for name, data in stream.events():
                    if name != "source":
                        continue
                    source = json.loads(data)
                    if source.get("status") == "ready":
                        return source
                    if source.get("status") == "failed":
                        pytest.fail(f"the server's photo list failed: {source.get('error')}; " + self.describe(),
                                    pytrace=False)
            finally:
                stream.close()
            remaining()

    def stop(self):
        if self._stdout.closed:
            return
        stop_process(self.process, grace=10)
        self.process.stdout.close()
        self._stdout.close()
        self._stderr.close()


def pytest_sessionstart(session):
    shutil.rmtree(ARTIFACTS / "failures", ignore_errors=True)


@pytest.fixture(scope="session")
def session_dir():
    path = Path(tempfile.mkdtemp(prefix="classic-photos-browser-"))
    # The sample photos every server shares, made once before any starts (a server makes a missing
    # one when a row asks for it and the rest in the background: each server would make them again).
    make_samples(path / "samples", 300)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def make_samples(cache: Path, count: int) -> None:
    """Makes the first `count` sample photos in `cache` with `classic-photos samples`."""
    if not BINARY.exists():
        pytest.fail(f"no server binary at {BINARY} (build it with `swift build`, or set CLASSIC_PHOTOS_BIN)", pytrace=False)
    subprocess.run([str(BINARY), "samples", "--photo-count", str(count), "--cache-dir", str(cache)],
                   check=True, stdout=subprocess.DEVNULL, timeout=600)


def own_cache_dir(session_dir: Path, name: str) -> Path:
    """A new cache folder for one server: its disk cache of photos is its own (a server never starts with
    another's work done, even one of the same name that ran before it: a class's `slow_server` found rows
    another module's `slow_server` had filtered), while the generated sample photos are shared, so they are
    made only once. A test that restarts a server on the same cache calls this once and reuses the folder."""
    shared_samples = session_dir / "samples" / "sample-photos-v2"
    shared_samples.mkdir(parents=True, exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix=f"cache-{name}-", dir=session_dir))
    link = cache / "sample-photos-v2"
    if not link.exists():
        link.symlink_to(shared_samples, target_is_directory=True)
    return cache


@pytest.fixture(scope="session")
def start_server(session_dir):
    """Starts servers with the given settings; all are stopped at the end of the session."""
    if not BINARY.exists():
        pytest.fail(f"no server binary at {BINARY} (build it with `swift build`, or set CLASSIC_PHOTOS_BIN)",
                    pytrace=False)
    servers: list[Server] = []

    def start(name: str, **settings) -> Server:
        server = Server(session_dir, own_cache_dir(session_dir, name), name, **settings)
        servers.append(server)
        server.wait_ready()
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def server(start_server) -> Server:
    """The shared server: 300 photos from a moderately fast origin."""
    return start_server("shared", photo_count=300, latency_ms=100, bandwidth=2_000_000)


@pytest.fixture(scope="class")
def slow_server(start_server):
    """A fresh server with a slow origin, so that scrolling away can overtake the work."""
    server = start_server("slow", photo_count=300, latency_ms=300, bandwidth=400_000)
    yield server
    server.stop()


class OnePhotoOrigin:
    """A loopback origin that answers every GET with the same photo (404 for paths with "missing"),
    for data sources longer than the sample origin's default list."""

    def __init__(self, photo: bytes, latency_s: float = 0.02):
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's naming
                time.sleep(latency_s)
                missing = "missing" in self.path
                body = b"not here" if missing else photo
                self.send_response(404 if missing else 200)
                self.send_header("Content-Type", "text/plain" if missing else "image/jpeg")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def write_source(self, path: Path, count: int) -> Path:
        """A JSON data source of `count` photos on this origin (every 97th missing)."""
        entries = {f"Photo {n:05d}": f"{self.base_url}/{'missing' if n % 97 == 50 else 'photo'}-{n}.jpg"
                   for n in range(count)}
        path.write_text(json.dumps(entries))
        return path

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def big_server(start_server, server, session_dir):
    """A server with 3,000 photos (a JSON data source on a loopback origin that serves one of the
    shared server's sample photos for each)."""
    photo = next((session_dir / "samples" / "sample-photos-v2").glob("photo-0*.jpg")).read_bytes()
    origin = OnePhotoOrigin(photo)
    source = origin.write_source(session_dir / "big-source.json", 3000)
    yield start_server("big", photo_count=3000, latency_ms=20, bandwidth=20_000_000, source=str(source))
    origin.close()


def chrome_options() -> webdriver.ChromeOptions:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                     "--disable-gpu", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return options


def new_driver() -> webdriver.Chrome:
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=chrome_options())
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(30)
    return driver


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)


def test_failed(request) -> bool:
    return any(getattr(request.node, "rep_" + when, None) is not None and getattr(request.node, "rep_" + when).failed
               for when in ("setup", "call"))


def keep_evidence(driver, name: str):
    """Keeps a failed test's screenshot and browser console in artifacts/failures."""
    try:
        folder = ARTIFACTS / "failures"
        folder.mkdir(parents=True, exist_ok=True)
        stem = name.replace("/", "_")
        driver.save_screenshot(str(folder / f"{stem}.png"))
        lines = [f"{entry.get('level')} {entry.get('message')}" for entry in driver.get_log("browser")]
        (folder / f"{stem}.console.txt").write_text("\n".join(lines))
    except Exception:  # noqa: BLE001 - diagnostics must not hide the failure itself
        pass


def close_driver(driver, request, label: str):
    """Quits a browser, after a failed test first keeping its evidence."""
    if test_failed(request):
        keep_evidence(driver, f"{request.node.name}-{label}")
    try:
        driver.quit()
    except Exception:  # noqa: BLE001
        pass


@pytest.fixture
def make_driver(request):
    """Starts headless Chromium windows for one test; all are closed after it."""
    drivers = []

    def make() -> webdriver.Chrome:
        driver = new_driver()
        drivers.append(driver)
        return driver

    yield make
    for number, driver in enumerate(drivers):
        close_driver(driver, request, f"window{number}")


@pytest.fixture
def driver(make_driver):
    return make_driver()


@pytest.fixture(scope="class")
def class_driver():
    """One browser window shared by the tests of a class (a story told in steps)."""
    driver = new_driver()
    yield driver
    try:
        driver.quit()
    except Exception:  # noqa: BLE001
        pass


@pytest.fixture(autouse=True)
def _evidence_of_class_driver(request):
    """A failed test of a class keeps the shared window's screenshot and console too."""
    yield
    if "class_driver" in request.fixturenames and test_failed(request):
        keep_evidence(request.getfixturevalue("class_driver"), f"{request.node.name}-class")
