"""Trust nothing from outside (issue 23): an origin that redirects into loopback, bytes that are not
images, cache files that lie, a full disk, a dripping data source, stray files of a killed run."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

import support
from conftest import BINARY, Server
from server_process import read_address_line
from trust_support import ScriptedOrigin, is_whole_image, load_rows, photos

SECRET = b'{"AccessKeyId": "INTERNAL-SECRET-7d1f"}'


@pytest.fixture(scope="module")
def jpeg(server_factory) -> bytes:
    """One of the generated sample photos, of the 40 `classic-photos samples` makes (the tests that
    serve that folder with `--photos-dir` read 25 rows of it)."""
    subprocess.run([str(BINARY), "samples", "--photo-count", "40", "--cache-dir", str(server_factory.workdir / "samples")],
                   check=True, stdout=subprocess.DEVNULL, timeout=600)
    folder = server_factory.workdir / "samples" / "sample-photos-v2"
    return sorted(folder.glob("photo-0*.jpg"))[0].read_bytes()


@pytest.fixture
def inside():
    """An internal service on loopback that nobody named: what a redirect must not reach."""
    origin = ScriptedOrigin({"/secret.jpg": (200, {"Content-Type": "image/jpeg"}, SECRET)})
    yield origin
    origin.close()


def listing_origin(jpeg: bytes, evil_location: str) -> ScriptedOrigin:
    origin = ScriptedOrigin()
    origin.routes = {
        "/photos.json": (200, {"Content-Type": "application/json"},
                         json.dumps({"A good": origin.url("/good.jpg"), "B evil": origin.url("/evil.jpg"),
                                     # More rows, for the normal client's six
                                     **{f"C good {n}": origin.url(f"/good.jpg?n={n}") for n in range(6)}}).encode()),
        "/good.jpg": (200, {"Content-Type": "image/jpeg"}, jpeg),
        "/evil.jpg": (302, {"Location": evil_location}, b""),
    }
    return origin


def test_redirect_to_a_loopback_port_nobody_named_is_refused(server_factory, jpeg, inside):
    # Given a data source whose second photo redirects to an internal service on another loopback port
    origin = listing_origin(jpeg, inside.url("/secret.jpg"))
    try:
        server = server_factory.start("ssrf", flags=["--source", origin.url("/photos.json"), "--strategy", "visible"])
        # When a viewer has both rows on screen
        rows = load_rows(server.host, server.port, 0, 1)
        # Then the named origin's photo loads, the redirect is refused with the reason, and the
        # internal service never hears a request
        assert rows[0]["state"] == "filtered", rows
        assert rows[1]["state"] == "failed", rows
        assert f"127.0.0.1:{inside.port} is a loopback address, not an allowed source" in rows[1]["reason"], rows[1]
        assert inside.requests("/secret.jpg") == 0
        status, headers, body = support.http_request(server.host, server.port, "GET", "/photos/1/original")
        assert status == 404 and b"INTERNAL-SECRET" not in body, body
        support.assert_normal_client_served(server.host, server.port)
    finally:
        origin.close()


def test_bytes_that_are_not_an_image_are_never_served_nor_echoed(server_factory, jpeg, inside):
    # Given the same origin, with the internal service allowed by the operator (so its bytes arrive)
    origin = listing_origin(jpeg, inside.url("/secret.jpg"))
    try:
        server = server_factory.start("not-an-image", flags=[
            "--source", origin.url("/photos.json"), "--strategy", "visible",
            "--allow-source-host", f"127.0.0.1:{inside.port}"])
        rows = load_rows(server.host, server.port, 0, 1)
        # Then the row fails as not an image, and neither its reason, its detail nor /original
        # carries the bytes (not even their first ones in hex)
        assert inside.requests("/secret.jpg") == 1
        assert rows[1]["state"] == "failed", rows
        echoed = json.dumps(rows[1])
        assert "SECRET" not in echoed and "AccessKey" not in echoed and "7b 22" not in echoed, echoed
        status, headers, body = support.http_request(server.host, server.port, "GET", "/photos/1/original")
        assert status == 404 and b"SECRET" not in body, (status, body)
        # And the good row's original is served as what it decoded as
        status, headers, body = support.http_request(server.host, server.port, "GET", "/photos/0/original")
        assert status == 200 and headers["content-type"] == "image/jpeg" and body == jpeg
    finally:
        origin.close()


def test_every_response_says_nosniff(server_factory):
    server = server_factory.start("nosniff")
    load_rows(server.host, server.port, 0, 0)
    for method, path, body in [("GET", "/", None), ("GET", "/healthz", None), ("GET", "/api/photos", None),
                               ("GET", "/photos/0/thumbnail", None), ("GET", "/photos/0/original", None),
                               ("GET", "/no/such/route", None), ("POST", "/api/viewport", b"{not json"),
                               ("GET", "/photos/99999/thumbnail", None), ("GET", "/metrics", None),
                               # answered in front of the parser (414) and by the head guard (431)
                               ("GET", "/" + "a" * 9000, None)]:
        status, headers, _ = support.http_request(server.host, server.port, method, path, body)
        assert headers.get("x-content-type-options") == "nosniff", (method, path[:40], status, headers)
    status, headers, _ = support.http_request(server.host, server.port, "GET", "/", headers={"X-Big": "b" * 20_000})
    assert status == 431 and headers.get("x-content-type-options") == "nosniff", (status, headers)


def damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "empty":
        path.write_bytes(b"")
    elif how == "random":
        path.write_bytes(os.urandom(len(data)))
    elif how == "cut":
        path.write_bytes(data[: len(data) // 2])
    elif how == "flipped":
        # One byte in the middle changed: the length and the trailer still fit, the checksum does not.
        middle = len(data) // 2
        path.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:])


def test_damaged_cache_files_across_a_restart_are_dropped_and_redone(server_factory):
    # Given a server that filtered rows 0-5 and was stopped
    first = server_factory.start("cache-before", flags=["--strategy", "visible"])
    cache_dir = Path(first.command[first.command.index("--cache-dir") + 1])
    before = load_rows(first.host, first.port, 0, 5)
    # (Row 1 is one of the samples' deliberately mis-named entries: it fails, and is not kept.)
    assert all(row["state"] in ("filtered", "failed") for row in before.values()), before
    filtered_before = sum(row["state"] == "filtered" for row in before.values())
    first.stop()
    images = cache_dir / "images"
    thumbnails = sorted(images.glob("*-thumbnail-*"))
    originals = sorted(images.glob("*-original"))
    assert len(thumbnails) == len(originals) == filtered_before >= 5, sorted(p.name for p in images.iterdir())
    # When four thumbnails and an original are damaged in four ways, and the server starts again
    for path, how in zip(thumbnails, ["empty", "random", "cut", "flipped"]):
        damage(path, how)
    damage(originals[-1], "cut")
    second = Server(server_factory.workdir, cache_dir, "cache-after", flags=["--strategy", "visible"])
    server_factory.servers.append(second)
    second.wait_ready()
    # Then every row that says filtered serves a whole thumbnail (the flipped file is caught when
    # first read, and its row is then no longer filtered), and no damaged byte is ever served
    for photo in photos(second.host, second.port)[:6]:
        status, headers, body = support.http_request(second.host, second.port, "GET", f"/photos/{photo['index']}/thumbnail")
        if status == 200:
            assert photo["state"] == "filtered" and is_whole_image(body), (photo, body[:20])
        else:
            now = photos(second.host, second.port)[photo["index"]]
            assert status == 404 and now["state"] != "filtered", (photo, now)
    not_filtered = [p for p in photos(second.host, second.port)[:6] if p["state"] != "filtered"]
    assert len(not_filtered) == 6 - (filtered_before - 4), photos(second.host, second.port)[:6]
    for index in range(6):
        status, _, body = support.http_request(second.host, second.port, "GET", f"/photos/{index}/original")
        assert status == 404 or is_whole_image(body), (index, status, body[:20])
    log = second.stderr(100_000)
    assert log.count("dropped") >= 5, log
    # And viewing them redoes them
    rows = load_rows(second.host, second.port, 0, 5)
    assert {i: r["state"] for i, r in rows.items()} == {i: r["state"] for i, r in before.items()}, rows
    for index in (i for i, row in rows.items() if row["state"] == "filtered"):
        status, _, body = support.http_request(second.host, second.port, "GET", f"/photos/{index}/thumbnail")
        assert status == 200 and is_whole_image(body), (index, status)


@pytest.fixture
def small_tmpfs(server_factory):
    """A 5 MB tmpfs of its own (root only): where a full disk is made on purpose."""
    mount_point = server_factory.workdir / f"tmpfs-{time.monotonic_ns()}"
    mount_point.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=5m", "tmpfs", str(mount_point)], capture_output=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.decode(errors='replace').strip()}")
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def fill(folder: Path, leave: int = 0) -> Path:
    """Writes a file that takes all the free space of `folder`'s file system but `leave` bytes."""
    filler = folder / "filler"
    free = shutil.disk_usage(folder).free - leave
    with open(filler, "wb") as f:
        try:
            f.write(b"\0" * max(0, free))
        except OSError:
            pass
    return filler


def health(server) -> dict:
    status, _, body = support.http_request(server.host, server.port, "GET", "/healthz")
    assert status == 200, body
    return json.loads(body)


def test_a_tmpfs_filled_while_serving(server_factory, small_tmpfs, jpeg):
    # Given a server whose cache is on a 5 MB tmpfs, a small memory budget, and photos of a folder
    samples = server_factory.workdir / "samples" / "sample-photos-v2"
    cache_dir = small_tmpfs / "cache"
    cache_dir.mkdir()
    server = Server(server_factory.workdir, cache_dir, "tmpfs", flags=[
        "--photos-dir", str(samples), "--strategy", "visible", "--memory-budget-mb", "2"])
    server_factory.servers.append(server)
    server.wait_ready()
    assert health(server)["cache"] == {"writable": True}, health(server)
    # When the disk fills while rows are worked on
    filler = fill(small_tmpfs, leave=1_500_000)
    rows = load_rows(server.host, server.port, 0, 24)
    assert all(row["wasFiltered"] for row in rows.values()), rows
    # Then the failure is logged once, /healthz says so, and no row claims what it cannot serve
    log = server.stderr(200_000)
    assert log.count("cache writes fail") == 1, log
    cache = health(server)["cache"]
    assert cache["writable"] is False and "No space left on device" in cache["problem"], cache
    for photo in photos(server.host, server.port)[:25]:
        status, _, body = support.http_request(server.host, server.port, "GET", f"/photos/{photo['index']}/thumbnail")
        if status == 200:
            assert is_whole_image(body)
        else:
            now = photos(server.host, server.port)[photo["index"]]
            assert now["state"] != "filtered", (photo, now)
    # And when space returns, work goes on: rows not kept are done again and kept (a few rows: all 25
    # photos' originals are more than the 5 MB tmpfs holds, and would fill it again)
    filler.unlink()
    rows = load_rows(server.host, server.port, 0, 4)
    assert all(row["wasFiltered"] for row in rows.values()), rows
    # (A full-size sepia image is made and kept on request: a write that now succeeds. Of a row first
    # loaded now, whose original was kept: rows 0-3's originals may be neither in the 2 MB of memory nor
    # on the disk that was full, and the full-size image is made only from a kept original.)
    fresh = load_rows(server.host, server.port, 40, 40)
    assert fresh[40]["state"] == "filtered", fresh
    status, _, body = support.http_request(server.host, server.port, "GET", "/photos/40/sepia", timeout=60)
    assert status == 200, body
    assert support.wait_until(lambda: health(server)["cache"]["writable"], 30), health(server)
    assert "cache writes work again" in server.stderr(200_000)
    support.assert_normal_client_served(server.host, server.port)


def test_the_server_starts_on_a_full_disk_and_says_so(server_factory, small_tmpfs, jpeg):
    samples = server_factory.workdir / "samples" / "sample-photos-v2"
    cache_dir = small_tmpfs / "cache"
    cache_dir.mkdir()
    filler = fill(small_tmpfs)
    server = Server(server_factory.workdir, cache_dir, "full-at-start", flags=["--photos-dir", str(samples)])
    server_factory.servers.append(server)
    server.wait_ready()
    cache = health(server)["cache"]
    assert cache["writable"] is False and "No space left on device" in cache["problem"], cache
    support.assert_normal_client_served(server.host, server.port)
    filler.unlink()


def test_stray_files_of_a_killed_sample_generation_are_removed(server_factory):
    samples = server_factory.workdir / "samples" / "sample-photos-v2"
    samples.mkdir(parents=True, exist_ok=True)
    stray = samples / ".dat.nosyncAB12"
    stray.write_bytes(b"half a photo")
    # Left by a run killed a while ago (a fresh one may be another server's write in flight, and is kept)
    an_hour_ago = time.time() - 3600
    os.utime(stray, (an_hour_ago, an_hour_ago))
    server = server_factory.start("stray")
    assert not stray.exists()
    support.assert_normal_client_served(server.host, server.port)


def test_a_dripping_data_source_fails_as_too_slow_and_sigterm_still_ends_the_server(server_factory):
    origin = ScriptedOrigin()
    origin.drips["/photos.json"] = 0.5
    try:
        # A drip of 2 bytes/s is judged once the stall time (2 s here) has passed
        server = server_factory.start("drip", wait=False, flags=["--source", origin.url("/photos.json"), "--stall-timeout", "2"])
        def failed() -> bool:
            status, _, body = support.http_request(server.host, server.port, "GET", "/healthz")
            return status == 503 and b"too slow" in body
        assert support.wait_until(lambda: server.alive() and _listening(server) and failed(), 60), server.describe()
        # One that would hold for long still lets SIGTERM end the process within its grace
        held = server_factory.start("drip-held", wait=False, flags=["--source", origin.url("/photos.json")])
        assert support.wait_until(lambda: origin.requests("/photos.json") >= 2, 30)
        # (Its signal handling is in place once it has written its address and answers.)
        deadline = time.monotonic() + 30

        def remaining() -> float:
            if time.monotonic() > deadline:
                pytest.fail("the held server never listened; " + held.describe(), pytrace=False)
            return max(0.1, deadline - time.monotonic())
        read_address_line(held.process, remaining, held.describe, held._stdout_log)
        assert support.wait_until(lambda: _listening(held), 30)
        held.process.send_signal(signal.SIGTERM)
        held.process.wait(timeout=15)
    finally:
        origin.close()


def _listening(server) -> bool:
    try:
        support.http_request(server.host, server.port, "GET", "/healthz", timeout=2)
        return True
    except OSError:
        return False


def test_expect_100_continue_is_answered_before_the_body_is_sent(server_factory):
    server = server_factory.start("expect")
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
    viewer = json.loads(body)["viewer"]
    report = json.dumps({"viewer": viewer, "scrolling": True}).encode()
    sock = support.connect(server.host, server.port)
    try:
        # When a client sends only the head and waits, as curl does
        sock.sendall(support.request_bytes("POST", "/api/viewport", {
            "Content-Type": "application/json", "Content-Length": str(len(report)), "Expect": "100-continue"}))
        interim = b""
        while b"\r\n\r\n" not in interim:
            chunk = sock.recv(4096)
            assert chunk, f"closed before any answer: {interim!r}"
            interim += chunk
        # Then it is told to go on, and after the body gets the final answer
        assert interim.startswith(b"HTTP/1.1 100 Continue\r\n"), interim
        sock.sendall(report)
        exchange = support.read_until_close(
            sock, time.monotonic() + 10, support.Exchange(data=interim.split(b"\r\n\r\n", 1)[1]),
            enough=lambda data: len(support.parse_responses(data)[0]) >= 1)
        responses, _ = support.parse_responses(exchange.data)
        assert [r.status for r in responses][:1] == [204], exchange.describe()
    finally:
        sock.close()
    support.assert_normal_client_served(server.host, server.port)
