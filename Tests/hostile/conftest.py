"""Fixtures for the hostile-client tests: real `classic-photos serve` processes on loopback.

The server binary is `.build/debug/classic-photos` (override with CLASSIC_PHOTOS_BIN). Every server
gets a loopback port and a cache folder of its own (the generated sample photos are shared through a
symlink, so they are made once per session) and small settings (30 photos, no origin latency).

Settings the server has had for long are given as flags. The limits that came with the move to
Hummingbird (`--idle-timeout`, `--max-header-bytes`, `--viewers-per-minute`, `--trusted-proxy`, ...)
are given as their environment variables (`CLASSIC_PHOTOS_IDLE_TIMEOUT`, ...), which mean the same:
a server that does not know them yet still starts, so each test shows what the attack itself does
to it rather than failing on an unknown flag.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from itertools import count
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pysupport"))
from server_process import read_address_line, stop_process  # noqa: E402

import support

REPO = support.REPO
BINARY = Path(os.environ.get("CLASSIC_PHOTOS_BIN", REPO / ".build" / "debug" / "classic-photos"))
# Seconds for a server to listen and load its list (the first start of a session generates the
# sample photos; later ones reuse them).
STARTUP_TIMEOUT = float(os.environ.get("CLASSIC_PHOTOS_STARTUP_TIMEOUT", "240"))
PHOTO_COUNT = 30

# The new per-address viewer rate limit is set out of the way for every server whose test is not
# about it: the normal-client checks all come from 127.0.0.1.
# So are the per-client shares of viewers, labs and shared streams (issue 41).
DEFAULT_ENV = {"CLASSIC_PHOTOS_VIEWERS_PER_MINUTE": "1000000", "CLASSIC_PHOTOS_CONNECTIONS_PER_CLIENT": "1000000",
               "CLASSIC_PHOTOS_VIEWERS_PER_CLIENT": "1000000", "CLASSIC_PHOTOS_LABS_PER_CLIENT": "64",
               "CLASSIC_PHOTOS_SHARED_STREAMS_PER_CLIENT": "1000000"}


def free_port(family: int = socket.AF_INET) -> int:
    host = "::1" if family == socket.AF_INET6 else "127.0.0.1"
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class Server:
    """One `classic-photos serve` process (optionally under a lower open-files limit)."""

    def __init__(self, workdir: Path, cache_dir: Path, name: str, *, host: str = "127.0.0.1",
                 connect_host: str = "127.0.0.1", flags: list[str] | None = None,
                 env: dict[str, str] | None = None, open_files: int | None = None):
        self.name = name
        self.host = connect_host
        self.port = free_port(socket.AF_INET6 if ":" in connect_host else socket.AF_INET)
        self.photo_count = PHOTO_COUNT
        self.stdout_path = workdir / f"{name}.stdout.log"
        self.stderr_path = workdir / f"{name}.stderr.log"
        self.command = [
            str(BINARY), "serve",
            "--host", host,
            "--port", str(self.port),
            "--photo-count", str(PHOTO_COUNT),
            "--sample-latency-ms", "0",
            "--cache-dir", str(cache_dir),
            *(flags or []),
        ]
        # With --tls-cert the port speaks only HTTPS: readiness is asked over TLS (unverified).
        self.tls = "--tls-cert" in self.command
        argv = self.command
        if open_files is not None:
            # `ulimit -n` in bash sets the soft and the hard limit: the server cannot raise it.
            # `exec` keeps the PID, so /proc/PID is the server's own.
            argv = ["bash", "-c", f'ulimit -n {int(open_files)} && exec "$0" "$@"', *self.command]
        # The caller's own CLASSIC_PHOTOS_* settings must not change what is tested.
        base = {k: v for k, v in os.environ.items() if not k.startswith("CLASSIC_PHOTOS_")}
        self.env = dict(DEFAULT_ENV, **(env or {}))
        self._stderr = open(self.stderr_path, "wb")
        self._stdout_log = open(self.stdout_path, "wb")
        self.process = subprocess.Popen(argv, cwd=REPO, env=dict(base, **self.env), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=self._stderr)
        self.pid = self.process.pid

    # -- diagnostics

    def stderr(self, limit: int = 3000) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")[-limit:]
        except OSError:
            return ""

    def describe(self) -> str:
        settings = " ".join(f"{k}={v}" for k, v in self.env.items())
        state = "running" if self.process.poll() is None else f"exited with status {self.process.returncode}"
        return (f"server {self.name} ({settings} {' '.join(self.command)}; {state}), "
                f"stderr tail:\n{self.stderr() or '(empty)'}")

    def alive(self) -> bool:
        return self.process.poll() is None

    def assert_alive(self):
        assert self.alive(), "the server process ended; " + self.describe()

    # -- measures of the process

    def cpu_seconds(self) -> float:
        return support.cpu_seconds(self.pid)

    def rss_bytes(self) -> int:
        return support.rss_bytes(self.pid)

    # -- life cycle

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT):
        """Waits for the address line on stdout (the server listens), then for `/healthz` to answer
        200 (the photo list is loaded). `/healthz` creates no viewer, so readiness costs nothing
        against the per-address viewer limit."""
        deadline = time.monotonic() + timeout

        def remaining() -> float:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"the server was not ready within {timeout:.0f} s; " + self.describe(), pytrace=False)
            return left

        read_address_line(self.process, remaining, self.describe, self._stdout_log)
        last = None
        while True:
            if not self.alive():
                pytest.fail("the server exited before it was ready; " + self.describe(), pytrace=False)
            try:
                status, _, body = support.http_request(self.host, self.port, "GET", "/healthz",
                                                       timeout=min(10.0, remaining()), tls=self.tls)
                if status == 200:
                    return
                if status == 503 and b'"failed"' in body:
                    pytest.fail(f"the server's photo list failed: {body!r}; " + self.describe(), pytrace=False)
                last = f"{status} {body[:200]!r}"
            except OSError as error:
                last = repr(error)
            remaining()
            time.sleep(0.1)  # polls /healthz; `last` says what it answered
            if time.monotonic() > deadline:
                pytest.fail(f"/healthz never answered 200 (last: {last}); " + self.describe(), pytrace=False)

    def stop(self):
        if self._stderr.closed:
            return
        stop_process(self.process, grace=15)
        self.process.stdout.close()
        self._stdout_log.close()
        self._stderr.close()


class ServerFactory:
    """Starts servers for the session, each with a cache folder of its own."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.numbers = count(1)
        self.servers: list[Server] = []

    def cache_dir(self, name: str) -> Path:
        shared_samples = self.workdir / "samples" / "sample-photos-v2"
        shared_samples.mkdir(parents=True, exist_ok=True)
        cache = self.workdir / f"cache-{name}"
        cache.mkdir()
        (cache / "sample-photos-v2").symlink_to(shared_samples, target_is_directory=True)
        return cache

    def start(self, name: str, wait: bool = True, **settings) -> Server:
        if not BINARY.exists():
            pytest.fail(f"no server binary at {BINARY} (build it with `swift build`, or set CLASSIC_PHOTOS_BIN)",
                        pytrace=False)
        name = f"{next(self.numbers):02d}-{name}"
        server = Server(self.workdir, self.cache_dir(name), name, **settings)
        self.servers.append(server)
        if wait:
            try:
                server.wait_ready()
            except BaseException:
                server.stop()
                raise
        return server

    def stop_all(self):
        for server in self.servers:
            server.stop()


@pytest.fixture(scope="session")
def server_factory():
    workdir = Path(tempfile.mkdtemp(prefix="classic-photos-hostile-"))
    factory = ServerFactory(workdir)
    # The sample photos the servers share, made once (a server makes missing ones as rows ask for
    # them and the rest in the background, which each server would do again).
    if BINARY.exists():
        subprocess.run([str(BINARY), "samples", "--cache-dir", str(workdir / "samples")],
                       check=True, stdout=subprocess.DEVNULL, timeout=600)
    yield factory
    factory.stop_all()
    if os.environ.get("CLASSIC_PHOTOS_KEEP_LOGS"):
        print(f"server logs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def start_server(server_factory):
    """Starts servers for one test; they are stopped when it ends."""
    started: list[Server] = []

    def start(name: str, **settings) -> Server:
        server = server_factory.start(name, **settings)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def test_ca(tmp_path_factory):
    """A CA made for the session (`tls_support.CertificateAuthority`): HTTPS servers get leaf certificates it signs."""
    from tls_support import CertificateAuthority
    return CertificateAuthority(tmp_path_factory.mktemp("tls"))
