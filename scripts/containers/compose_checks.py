"""The HTTP checks of compose-run.sh, against the compose services through their edge:

    compose_checks.py default EDGE_URL     the page, /healthz, a photo from new to sepia
    compose_checks.py cached EDGE_URL      after `down` and `up`: those results kept, nothing downloaded
    compose_checks.py cluster EDGE_URL --origin CONTAINER --container a=CONTAINER ...
                                           one GET per photo across the instances, then one killed
                                           while viewers scroll, its viewer served by another

Each wait ends as soon as what it waits for is seen; the deadline only bounds a failure."""
from __future__ import annotations

import argparse
import collections
import hashlib
import http.client
import json
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

DEADLINE = 120.0
COOKIE = "classic_photos_instance"
# Rows of the default profile's check: far from the first screen, which loading the page starts,
# and clear of the samples deliberately mis-named (every forty-third; row 100 is one).
ROWS = list(range(101, 105))


def fail(message: str):
    sys.exit(f"   FAILED: {message}")


def ok(message: str):
    print(f"   ok: {message}", flush=True)


def request(base: str, method: str, path: str, body=None, instance: str | None = None, timeout: float = 30):
    """(status, headers, body) of one request; `instance` sends the edge's sticky cookie."""
    headers = {"Content-Type": "application/json"}
    if instance:
        headers["Cookie"] = f"{COOKIE}={instance}"
    data = json.dumps(body).encode() if body is not None else None
    try:
        with urllib.request.urlopen(urllib.request.Request(base + path, data=data, method=method, headers=headers),
                                    timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def wait_until(predicate, what: str, timeout: float = DEADLINE):
    end = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except (OSError, ValueError):
            value = None
        if value:
            return value
        if time.monotonic() > end:
            fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


def sticky(headers) -> str | None:
    """The instance named by a response's Set-Cookie, if any."""
    for value in headers.get_all("Set-Cookie") or []:
        match = re.match(rf"{COOKIE}=([^;]+)", value)
        if match:
            return match.group(1)
    return None


class Viewer:
    """A page's viewer through the edge: made with POST /api/viewers, its event stream read on a
    thread (every row's states in order), its viewport reported as the page reports it."""

    def __init__(self, base: str, instance: str | None = None):
        self.base = base
        status, headers, body = request(base, "POST", "/api/viewers", {}, instance)
        if status != 201:
            fail(f"POST /api/viewers -> {status} {body[:200]!r}")
        self.id = json.loads(body)["viewer"]
        self.instance = sticky(headers) or instance
        self.states: dict[int, list[str]] = collections.defaultdict(list)
        self.changed = threading.Condition()
        self.ended = threading.Event()
        # http.client, not a bare socket: through the edge the stream is chunked anew.
        self.connection = http.client.HTTPConnection(urllib.parse.urlsplit(base).netloc, timeout=DEADLINE * 3)
        self.connection.request("GET", f"/events?viewer={self.id}",
                                headers={"Cookie": f"{COOKIE}={self.instance}"} if self.instance else {})
        self.stream = self.connection.getresponse()
        if self.stream.status != 200:
            fail(f"GET /events -> {self.stream.status}")
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_for([0], lambda history: bool(history), "the snapshot")

    def _read(self):
        """Reads whole events (blocks ended by a blank line) and keeps the rows' states."""
        pending = b""
        try:
            while chunk := self.stream.read1(65536):
                *events, pending = (pending + chunk).replace(b"\r\n", b"\n").split(b"\n\n")
                for event in events:
                    fields = dict(line.split(": ", 1) for line in event.decode().split("\n") if ": " in line)
                    if fields.get("event") in ("snapshot", "photo"):
                        data = json.loads(fields["data"])
                        with self.changed:
                            for photo in data.get("photos", [data]):
                                self.states[photo["index"]].append(photo["state"])
                            self.changed.notify_all()
        except (OSError, http.client.HTTPException):
            pass
        with self.changed:
            self.ended.set()
            self.changed.notify_all()

    def show(self, first: int, last: int, scrolling: bool = False) -> int:
        body = {"viewer": self.id, "scrolling": scrolling, "first": first, "last": last}
        return request(self.base, "POST", "/api/viewport", body, self.instance)[0]

    def wait_for(self, rows, reached, what: str):
        end = time.monotonic() + DEADLINE
        with self.changed:
            while not all(reached(self.states[row]) for row in rows):
                if self.ended.is_set() or time.monotonic() > end:
                    now = {row: self.states[row][-1:] for row in rows}
                    fail(f"viewer on {self.instance or 'the app'}: {what} not seen ({'stream ended' if self.ended.is_set() else 'timed out'}): {now}")
                self.changed.wait(1)

    def wait_filtered(self, rows):
        self.wait_for(rows, lambda history: history[-1:] == ["filtered"], f"rows {rows[0]}-{rows[-1]} filtered")


def healthy(base: str, instance: str | None = None) -> dict | None:
    status, _, body = request(base, "GET", "/healthz", instance=instance, timeout=5)
    health = json.loads(body) if status == 200 else None
    return health if health and (instance is None or health.get("instance") == instance) else None


def default(base: str):
    wait_until(lambda: request(base, "GET", "/edge-healthz")[0] == 200, "the edge")
    health = wait_until(lambda: healthy(base), "/healthz 200 through the edge")
    ok(f"200 /healthz through the edge: {json.dumps(health)[:120]}")
    status, headers, body = request(base, "GET", "/")
    if status != 200 or b"<html" not in body.lower():
        fail(f"GET / -> {status} {body[:200]!r}")
    ok(f"200 / ({len(body)} bytes of {headers.get('Content-Type')})")
    viewer = Viewer(base)
    # The stream's snapshot holds the rows near the viewer's viewport only: the list says where the rest stand.
    photos = json.loads(request(base, "GET", "/api/photos")[2])["photos"]
    first = {row: photos[row]["state"] for row in ROWS}
    if set(first.values()) != {"new"}:
        fail(f"on a new cache volume rows {ROWS[0]}-{ROWS[-1]} should start new: {first}")
    viewer.show(ROWS[0], ROWS[-1])
    viewer.wait_filtered(ROWS)
    status, headers, body = request(base, "GET", f"/photos/{ROWS[0]}/thumbnail")
    if status != 200 or not body.startswith(b"\xff\xd8"):
        fail(f"GET /photos/{ROWS[0]}/thumbnail -> {status} {headers.get('Content-Type')}")
    ok(f"rows {ROWS[0]}-{ROWS[-1]} went {' -> '.join(dict.fromkeys(viewer.states[ROWS[0]]))}; "
       f"the sepia thumbnail: {len(body)} bytes of JPEG")


def metric(base: str, name: str) -> float:
    text = request(base, "GET", "/metrics")[2].decode()
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name))


def cached(base: str):
    wait_until(lambda: healthy(base), "/healthz 200 after up")
    def done():
        photos = json.loads(request(base, "GET", "/api/photos")[2])["photos"]
        return all(photos[row]["state"] == "filtered" for row in ROWS)
    wait_until(done, f"rows {ROWS[0]}-{ROWS[-1]} filtered from the cache volume", timeout=30)
    downloaded = metric(base, "classic_photos_downloaded_bytes_total")
    if downloaded:
        fail(f"{downloaded:.0f} bytes downloaded after the restart: the results were not kept")
    status, _, body = request(base, "GET", f"/photos/{ROWS[0]}/thumbnail")
    if status != 200:
        fail(f"GET /photos/{ROWS[0]}/thumbnail after up -> {status}")
    ok(f"after down and up rows {ROWS[0]}-{ROWS[-1]} are filtered from the volume, 0 bytes downloaded, "
       f"the thumbnail served ({len(body)} bytes)")


def origin_gets(container: str) -> collections.Counter:
    """The photo GETs in the origin nginx's access log (its container's output)."""
    log = subprocess.run(["podman", "logs", container], capture_output=True, text=True, check=True)
    return collections.Counter(re.findall(r'"GET (/[^ ?"]+\.jpg) HTTP', log.stdout + log.stderr))


def cluster(base: str, origin: str, containers: dict[str, str]):
    wait_until(lambda: request(base, "GET", "/edge-healthz")[0] == 200, "the cluster's edge")
    for name in containers:
        health = wait_until(lambda: healthy(base, name), f"instance {name} ready behind the edge")
        if health.get("database") != "connected":
            fail(f"instance {name}: {health}")
    restarts = {name: inspect(container, "{{.RestartCount}}") for name, container in containers.items()}
    ok(f"instances {', '.join(containers)} ready behind the edge, each on PostgreSQL (cookie {COOKIE} reaches each); "
       f"container restarts so far: {restarts}")

    viewers = {name: Viewer(base, name) for name in containers}
    if {name: viewer.instance for name, viewer in viewers.items()} != {name: name for name in containers}:
        fail("a viewer made with an instance's cookie was made elsewhere")
    shown = list(range(12))
    for viewer in viewers.values():
        viewer.show(shown[0], shown[-1])
    for viewer in viewers.values():
        viewer.wait_filtered(shown)
    gets = origin_gets(origin)
    twice = {path: count for path, count in gets.items() if count > 1}
    if twice or len(gets) < len(shown):
        fail(f"GETs at the origin: {len(gets)} photos, fetched more than once: {twice}")
    ok(f"rows 0-11 filtered for a viewer on each instance; the origin's log: {len(gets)} photos, each GET once")
    for row in shown:
        answers = [request(base, "GET", f"/photos/{row}/thumbnail", instance=name) for name in containers]
        if {status for status, _, _ in answers} != {200} or len({hashlib.sha256(b).digest() for _, _, b in answers}) != 1:
            fail(f"row {row}: the instances' thumbnails differ or fail: {[status for status, _, _ in answers]}")
    ok("every instance serves the same thumbnail bytes for rows 0-11")

    victim = next(iter(containers))
    scroll(viewers, victim, containers[victim])
    moved = viewers[victim]
    if not moved.ended.wait(30):
        fail(f"the event stream of {victim}'s viewer did not end when its container was killed")
    replacement = Viewer(base, victim)  # as the page does: a new viewer, with the old cookie
    if replacement.instance in (None, victim):
        fail(f"the viewer of the killed instance {victim} was not moved: it got {replacement.instance!r}")
    stop = list(range(28, 40))
    replacement.show(stop[0], stop[-1])
    for viewer in [replacement] + [v for name, v in viewers.items() if name != victim]:
        if viewer.ended.is_set():
            fail(f"the stream of the viewer on {viewer.instance} ended too")
        viewer.wait_filtered(stop)
    state = inspect(containers[victim], "{{.State.Status}} (exit code {{.State.ExitCode}})")
    ok(f"{victim}'s viewer moved to {replacement.instance} (new cookie) and got rows 28-39 filtered there; "
       f"the others' streams went on; the killed container is now {state}")


def inspect(container: str, template: str) -> str:
    return subprocess.run(["podman", "inspect", "--format", template, container],
                          capture_output=True, text=True).stdout.strip()


def scroll(viewers: dict[str, Viewer], victim: str, container: str):
    """Every viewer scrolls rows 12-39 the way a page reports it, and the victim's container is killed
    half-way (SIGKILL: no goodbye to its viewers); then every viewer stops on rows 28-39."""
    for step, first in enumerate(range(12, 28)):
        if step == 8:
            subprocess.run(["podman", "kill", container], check=True, capture_output=True)
            ok(f"podman kill {container} (instance {victim}) while its viewers scroll")
        for name, viewer in viewers.items():
            if name != victim or step < 8:
                viewer.show(first, first + 11, scrolling=True)
        time.sleep(0.1)  # the page's reporting interval while scrolling
    for name, viewer in viewers.items():
        if name != victim:
            viewer.show(28, 39)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("check", choices=["default", "cached", "cluster"])
    parser.add_argument("edge")
    parser.add_argument("--origin")
    parser.add_argument("--container", action="append", default=[], help="NAME=CONTAINER for each instance")
    args = parser.parse_args()
    if args.check == "cluster":
        cluster(args.edge, args.origin, dict(item.split("=", 1) for item in args.container))
    else:
        {"default": default, "cached": cached}[args.check](args.edge)


if __name__ == "__main__":
    main()
