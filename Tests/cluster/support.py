"""What the cluster tests run on loopback: a PostgreSQL of their own (initdb in a fresh folder, as an
unprivileged user), an origin that counts GETs per photo and holds the ones a test gates, and
`classic-photos serve` instances on that database, with viewers reading their event streams."""
from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pysupport"))
from server_process import read_address_line, stop_process  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("CLASSIC_PHOTOS_BIN", REPO / ".build" / "debug" / "classic-photos"))
# Failure bounds only: every wait below ends as soon as what it waits for happens.
DEADLINE = float(os.environ.get("CLASSIC_PHOTOS_CLUSTER_DEADLINE", "90"))
PG_USER = "classic-photos-pg"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, what: str, timeout: float = DEADLINE, interval: float = 0.05, describe=None):
    """Polls `predicate` (a state read over HTTP or SQL, where no event says it changed) until it
    returns something true; fails the test after `timeout` seconds (saying `describe()` if given)."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            pytest.fail(f"timed out waiting for {what}" + (f": {describe()}" if describe else ""), pytrace=False)
        time.sleep(interval)


def pg_bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for version in sorted(Path("/usr/lib/postgresql").glob("*"), reverse=True):
        candidate = version / "bin" / name
        if candidate.exists():
            return str(candidate)
    pytest.fail(f"PostgreSQL's {name} is not installed (scripts/install-deps.sh --tests installs it)", pytrace=False)


class Postgres:
    """A PostgreSQL server in a fresh folder, on a loopback port, run by an unprivileged user
    (PostgreSQL refuses root), trusting local connections."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.dir = workdir / "pg"
        self.dir.mkdir()
        self.log = workdir / "pg.log"
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            try:
                pwd.getpwnam(PG_USER)
            except KeyError:
                subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER], check=True)
            shutil.chown(self.dir, PG_USER)
            os.chmod(workdir, 0o755)
            self.as_user = ["runuser", "-u", PG_USER, "--"]
        subprocess.run(self.as_user + [pg_bin("initdb"), "-D", str(self.dir / "data"), "-A", "trust", "-U", "classic", "--no-sync"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.start()

    @property
    def url(self) -> str:
        return f"postgres://classic@127.0.0.1:{self.port}/postgres"

    def start(self):
        subprocess.run(self.as_user + [pg_bin("pg_ctl"), "-D", str(self.dir / "data"), "-l", str(self.dir / "log"), "-w", "-o",
                                       f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                       check=True, stdout=subprocess.DEVNULL)

    def stop(self):
        subprocess.run(self.as_user + [pg_bin("pg_ctl"), "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def sql(self, statement: str) -> str:
        return subprocess.run([pg_bin("psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "classic", "-d", "postgres",
                               "-At", "-c", statement], check=True, capture_output=True, text=True).stdout.strip()


class Origin:
    """Serves a JSON data source and photo files over HTTP on loopback, counting GETs per photo. A
    gated photo's first GET sends half of the file, then waits until the test opens the gate."""

    def __init__(self, photos: dict[str, bytes]):
        self.photos = photos
        self.counts: dict[str, int] = {}
        self.gates: dict[str, threading.Event] = {}
        self.started: dict[str, threading.Event] = {name: threading.Event() for name in photos}
        self.lock = threading.Lock()
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path == "/photos.json":
                    body = json.dumps({name: f"http://127.0.0.1:{origin.port}/p/{name}.jpg" for name in origin.photos}).encode()
                    return self.reply(body, "application/json")
                name = self.path.removeprefix("/p/").removesuffix(".jpg")
                if name not in origin.photos:
                    self.send_error(404)
                    return
                with origin.lock:
                    origin.counts[name] = origin.counts.get(name, 0) + 1
                    gate = origin.gates.pop(name, None)
                data = origin.photos[name]
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    if gate is None:
                        self.wfile.write(data)
                    else:
                        self.wfile.write(data[: len(data) // 2])
                        self.wfile.flush()
                        origin.started[name].set()
                        gate.wait(DEADLINE * 2)
                        self.wfile.write(data[len(data) // 2:])
                except (BrokenPipeError, ConnectionResetError):
                    pass
                origin.started[name].set()

            def reply(self, body: bytes, content_type: str):
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def source(self) -> str:
        return f"http://127.0.0.1:{self.port}/photos.json"

    def hold(self, name: str) -> threading.Event:
        """Gates the next GET of `name`: half its bytes go out, the rest when the returned event is set."""
        gate = threading.Event()
        with self.lock:
            self.gates[name] = gate
        return gate

    def count(self, name: str) -> int:
        with self.lock:
            return self.counts.get(name, 0)

    def close(self):
        with self.lock:
            for gate in self.gates.values():
                gate.set()
        self.server.shutdown()


class Instance:
    """`classic-photos serve` on a free loopback port, on the given database and data source."""

    def __init__(self, workdir: Path, name: str, database_url: str, source: str, extra: list[str] | None = None):
        self.name = name
        self.port = free_port()
        self.log_path = workdir / f"instance-{name}.log"
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(BINARY), "serve", "--port", str(self.port), "--source", source, "--database-url", database_url,
             "--instance-name", name, "--cache-dir", str(workdir / f"cache-{name}"), "--strategy", "visible",
             "--downloads", "4", "--filters", "2", "--viewers-per-minute", "10000",
             "--connections-per-client", "10000", *(extra or [])],
            stdout=subprocess.PIPE, stderr=self.log, cwd=REPO)
        end = time.monotonic() + DEADLINE
        read_address_line(self.process, lambda: max(0.1, end - time.monotonic()), self.describe, self.log)
        wait_until(lambda: self.health().get("status") == "ready", f"instance {name} to load its list")

    def describe(self) -> str:
        self.log.flush()
        return f"instance {self.name} log:\n" + self.log_path.read_text(errors="replace")[-4000:]

    def request(self, method: str, path: str, body=None, headers=None, timeout: float = 30):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def health(self) -> dict:
        try:
            return json.loads(self.request("GET", "/healthz", timeout=5)[2])
        except (OSError, ValueError):
            return {}

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self):
        stop_process(self.process, grace=20)
        self.log.close()


class Viewer:
    """A viewer on one instance: its event stream read on a thread of its own, every `photo` event kept
    in order; `show(first, last)` reports its viewport as the page does."""

    def __init__(self, instance: Instance):
        self.instance = instance
        status, _, body = instance.request("POST", "/api/viewers", {})
        assert status == 201, body
        self.id = json.loads(body)["viewer"]
        self.states: dict[int, list[dict]] = {}
        # Every `stats` event, in order (the page replaces its totals whole with each).
        self.stats: list[dict] = []
        self.condition = threading.Condition()
        self.sock = socket.create_connection(("127.0.0.1", instance.port), timeout=DEADLINE * 2)
        self.sock.sendall(f"GET /events?viewer={self.id} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        self.snapshot = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        assert self.snapshot.wait(DEADLINE), "no snapshot"

    def _read(self):
        buffer, name = b"", None
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    text = line.decode(errors="replace").rstrip("\r")
                    if text.startswith("event: "):
                        name = text[7:]
                    elif text.startswith("data: ") and name:
                        self._event(name, json.loads(text[6:]))
                        name = None
        except OSError:
            return

    def _event(self, name: str, data: dict):
        with self.condition:
            if name == "snapshot":
                for photo in data["photos"]:
                    self.states.setdefault(photo["index"], []).append(photo)
                self.snapshot.set()
            elif name == "photo":
                self.states.setdefault(data["index"], []).append(data)
            elif name == "stats":
                self.stats.append(data)
            self.condition.notify_all()

    def show(self, first: int, last: int):
        status, _, body = self.instance.request("POST", "/api/viewport", {"viewer": self.id, "scrolling": False, "first": first, "last": last})
        assert status == 204, body

    def state(self, index: int) -> str | None:
        with self.condition:
            history = self.states.get(index)
            return history[-1]["state"] if history else None

    def history(self, index: int) -> list[dict]:
        with self.condition:
            return list(self.states.get(index, []))

    def wait_for(self, indices, state: str = "filtered", ever: bool = False):
        """Waits for the event that brings every row of `indices` to `state` (`ever`: the event that
        first showed it in that state, whatever came after)."""
        def reached(i: int) -> bool:
            history = self.states.get(i) or []
            return any(e["state"] == state for e in history) if ever else bool(history) and history[-1]["state"] == state

        end = time.monotonic() + DEADLINE
        with self.condition:
            while not all(reached(i) for i in indices):
                remaining = end - time.monotonic()
                if remaining <= 0:
                    now = {i: (self.states.get(i) or [{}])[-1].get("state") for i in indices}
                    pytest.fail(f"viewer on {self.instance.name}: rows not {state}: {now}\n{self.instance.describe()}", pytrace=False)
                self.condition.wait(remaining)

    def wait_for_stats(self, condition, what: str) -> dict:
        """Waits for a `stats` event that satisfies `condition`, returning it (older ones are skipped)."""
        end = time.monotonic() + DEADLINE
        seen = 0
        with self.condition:
            while True:
                for stats in self.stats[seen:]:
                    if condition(stats):
                        return stats
                seen = len(self.stats)
                remaining = end - time.monotonic()
                if remaining <= 0:
                    pytest.fail(f"viewer on {self.instance.name}: no stats event with {what}; last {self.stats[-1:]}", pytrace=False)
                self.condition.wait(remaining)

    def close(self):
        # Shut down first: the reading thread's recv returns, and the descriptor is closed only
        # after that thread has stopped, so its number is never reused under a recv still running.
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.reader.join(DEADLINE)
        try:
            self.sock.close()
        except OSError:
            pass


def sample_photos(workdir: Path, count: int) -> dict[str, bytes]:
    """Photo-sized JPEGs made by the app's own sample generator (`classic-photos samples`)."""
    cache = workdir / "samples"
    subprocess.run([str(BINARY), "samples", "--photo-count", str(count), "--cache-dir", str(cache)],
                   check=True, stdout=subprocess.DEVNULL, cwd=REPO, timeout=DEADLINE * 2)
    folder = next(cache.glob("sample-photos-*"))
    return {path.stem.replace(" ", "-"): path.read_bytes() for path in sorted(folder.glob("*.jpg"))[:count]}


class Edge:
    """nginx with deploy/nginx/cluster.conf in front of `instances` on loopback: the block between its
    "instances" marks replaced by these instances (as scripts/cluster.sh does), paths made local."""

    def __init__(self, workdir: Path, instances: list[Instance]):
        self.port = free_port()
        self.dir = workdir / "edge"
        self.dir.mkdir()
        lines = ["    map $cookie_classic_photos_instance $instance_upstream {", "        default cluster_any;"]
        lines += [f"        {i.name} cluster_{i.name};" for i in instances] + ["    }", "    upstream cluster_any {"]
        lines += [f"        server 127.0.0.1:{i.port} max_fails=1 fail_timeout=5s;" for i in instances] + ["    }"]
        for n, instance in enumerate(instances):
            lines += [f"    upstream cluster_{instance.name} {{", f"        server 127.0.0.1:{instance.port} max_fails=1 fail_timeout=5s;"]
            lines += [f"        server 127.0.0.1:{instances[(n + k) % len(instances)].port} backup;" for k in range(1, len(instances))]
            lines += ["    }"]
        text = (REPO / "deploy" / "nginx" / "cluster.conf").read_text()
        begin, end = text.index("\n", text.index("instances (begin)")) + 1, text.index("    # ----", text.index("instances (begin)") + 1)
        text = text[:begin] + "\n".join(lines) + "\n" + text[end:]
        user = "user root root;" if os.geteuid() == 0 else ""
        temp = "".join(f"\n    {kind}_temp_path {self.dir}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        text = (text.replace("user nginx;", user).replace("pid /var/run/nginx.pid;", f"pid {self.dir}/nginx.pid;")
                .replace("error_log stderr warn;", f"error_log {self.dir}/error.log warn;")
                .replace("listen 8080 default_server;", f"listen 127.0.0.1:{self.port} default_server;")
                .replace("http {", "http {" + temp, 1))
        (self.dir / "nginx.conf").write_text(text)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen([nginx, "-p", str(self.dir), "-c", str(self.dir / "nginx.conf"), "-g", "daemon off;"],
                                        stderr=subprocess.PIPE)
        wait_until(lambda: self.request("GET", "/edge-healthz")[0] == 200, "the edge to answer")

    def request(self, method: str, path: str, cookie: str | None = None, body=None):
        headers = {"Content-Type": "application/json"}
        if cookie:
            headers["Cookie"] = f"classic_photos_instance={cookie}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()
        except OSError:
            return 0, {}, b""

    @staticmethod
    def sticky(headers) -> str | None:
        """The instance a response's Set-Cookie names."""
        for value in headers.get_all("Set-Cookie") or []:
            if value.startswith("classic_photos_instance="):
                return value.split(";", 1)[0].split("=", 1)[1]
        return None

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
