"""Labs against the bare binary, where nothing else shares the process: four labs run to the end,
their pages leave, and the server's open files and resident memory go back to their level (the
first round warms what stays for the process: libcurl's connection cache, threads, the allocator's
arenas). A lab whose page left ends within a few seconds."""
from __future__ import annotations

import json
import threading
import time

import support

LABS = 4
LEFT_WITHIN = 15  # seconds: the failure bound for "a lab whose page left ends"
# libcurl's connection cache keeps connections to the origin for reuse (up to 4 per transfer it ran at
# once, for two minutes), each two files here (the in-process origin holds the other end), and a second
# round that overlapped more on a loaded machine keeps a few more: 5-6 over 4 at load 17. A leak of one
# file per transfer would be 80 a round (4 labs x 2 lanes x 10 rows).
FILES_SLACK = 12
MEMORY_SLACK = 32 * 1024 * 1024


def post(server, path: str, body: dict) -> tuple[int, dict]:
    status, _, raw = support.http_request(server.host, server.port, "POST", path, json.dumps(body).encode(),
                                          headers={"Content-Type": "application/json"})
    return status, json.loads(raw or b"{}")


def get(server, path: str) -> tuple[int, dict]:
    status, _, raw = support.http_request(server.host, server.port, "GET", path)
    return status, json.loads(raw or b"{}")


def run_labs_and_leave(server) -> float:
    """Starts LABS labs (eager and prefetch lanes), shows each lane rows 0-9 until every lane has
    them done, then closes every stream (the pages leave); returns the seconds until all had ended."""
    labs, streams = [], []
    for _ in range(LABS):
        status, lab = post(server, "/api/labs", {"lanes": [{"strategy": "eager"}, {"strategy": "prefetch", "prefetch": 3}]})
        assert status == 201, lab
        labs.append(lab["lab"])
        for lane in lab["lanes"]:
            stream = support.EventStream(server.host, server.port, lane["viewer"], timeout=120)
            assert stream.status == 200
            streams.append(stream)
            status, _ = post(server, "/api/viewport", {"viewer": lane["viewer"], "scrolling": False, "first": 0, "last": 9})
            assert status == 204

    def rows_done(stream):
        done = set()
        while len(done) < 10:
            event = stream.next_event()
            assert event is not None, "a lane's stream ended early; " + server.describe()
            name, data = event
            if name == "snapshot":
                done |= {p["index"] for p in json.loads(data)["photos"] if p["state"] in ("filtered", "failed") and p["index"] < 10}
            elif name == "photo" and json.loads(data)["state"] in ("filtered", "failed") and json.loads(data)["index"] < 10:
                done.add(json.loads(data)["index"])

    readers = [threading.Thread(target=rows_done, args=(stream,)) for stream in streams]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(timeout=120)
    left = time.monotonic()
    for stream in streams:
        stream.close()
    assert support.wait_until(lambda: all(get(server, f"/api/labs/{lab}")[0] == 404 for lab in labs), LEFT_WITHIN), \
        "labs whose pages left did not end; " + server.describe()
    return time.monotonic() - left


def test_labs_end_when_their_pages_leave_and_files_and_memory_return(start_server):
    server = start_server("labs", flags=["--max-labs", str(LABS), "--sample-latency-ms", "20"])
    run_labs_and_leave(server)
    files_before, memory_before = support.open_fds(server.pid), server.rss_bytes()

    ended_after = run_labs_and_leave(server)

    assert ended_after < LEFT_WITHIN
    assert support.wait_until(lambda: support.open_fds(server.pid) <= files_before + FILES_SLACK, 30), \
        f"open files {support.open_fds(server.pid)} after the labs ended, {files_before} before"
    memory_after = server.rss_bytes()
    print(f"labs ended {ended_after:.1f} s after their pages left; open files {files_before} -> "
          f"{support.open_fds(server.pid)}; resident {memory_before / 1e6:.0f} -> {memory_after / 1e6:.0f} MB")
    assert memory_after <= memory_before + MEMORY_SLACK, (memory_before, memory_after)
    server.assert_alive()
