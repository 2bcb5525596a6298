#!/usr/bin/env python3
"""A first start on a fresh cache (issue 40): seconds from `serve` to its list being ready and to its
first screen's rows (0-9) filtered, for a list of `--photos` sample photos none of which is on disk yet,
beside the same start with every sample photo already made (the baseline, in the same run). The
sample origin makes each photo when a row first asks for it, so the first screen should not wait for
the list's length.

    python3 Benchmarks/first_start.py [--photos 10000] [--runs 3]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from common import BINARY, HOST, LOAD_CLIENT_ENV, ROOT, free_port, http, log, machine, table

FIRST_SCREEN = range(0, 10)


def one_start(photos: int, cache: Path) -> tuple[float, float]:
    """(seconds to a ready list, seconds to rows 0-9 filtered) for one server start on `cache`."""
    port = free_port()
    started = time.monotonic()
    process = subprocess.Popen([str(BINARY), "serve", "--host", HOST, "--port", str(port), "--cache-dir", str(cache),
                                "--photo-count", str(photos), "--strategy", "visible",
                                "--public-dir", str(ROOT / "Public"), "--templates-dir", str(ROOT / "Templates")],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, **LOAD_CLIENT_ENV})
    try:
        ready = poll(lambda: page(port, 0)["status"] == "ready", started)
        status, body = http("POST", port, "/api/viewers")
        viewer = json.loads(body)["viewer"]
        http("POST", port, "/api/viewport", {"viewer": viewer, "scrolling": False,
                                             "first": FIRST_SCREEN.start, "last": FIRST_SCREEN.stop - 1})
        done = {"filtered", "failed"}
        screen = poll(lambda: all(row["state"] in done for row in page(port, 0)["photos"]), started)
        return ready, screen
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def page(port: int, start: int) -> dict:
    status, body = http("GET", port, f"/api/photos?from={start}&limit={len(FIRST_SCREEN)}")
    return json.loads(body) if status == 200 else {"status": "unreachable", "photos": []}


def poll(condition, started: float, timeout: float = 1800) -> float:
    while time.monotonic() - started < timeout:
        try:
            if condition():
                return time.monotonic() - started
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    raise SystemExit("timed out")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--photos", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not BINARY.exists():
        raise SystemExit(f"{BINARY} is missing: build it with scripts/bench.sh")
    log(f"machine: {machine()}; load {os.getloadavg()[0]:.2f}")
    rows = []
    for run in range(1, args.runs + 1):
        fresh = Path(tempfile.mkdtemp(prefix="classic-photos-first-start-"))
        warm = Path(tempfile.mkdtemp(prefix="classic-photos-first-start-warm-"))
        try:
            cold_ready, cold_screen = one_start(args.photos, fresh)
            # The baseline: the first screen's photos already on disk (made by the cold run), nothing else kept.
            shutil.copytree(next(fresh.glob("sample-photos-*")), warm / next(fresh.glob("sample-photos-*")).name)
            warm_ready, warm_screen = one_start(args.photos, warm)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)
            shutil.rmtree(warm, ignore_errors=True)
        rows.append([run, f"{cold_ready:.2f}", f"{cold_screen:.2f}", f"{warm_ready:.2f}", f"{warm_screen:.2f}",
                     f"{cold_screen / warm_screen:.2f}x"])
    log(f"{args.photos} sample photos, first screen rows {FIRST_SCREEN.start}-{FIRST_SCREEN.stop - 1}; load after "
        f"{os.getloadavg()[0]:.2f}")
    log(table(["run", "fresh: list ready s", "fresh: first screen s", "made: list ready s", "made: first screen s",
               "fresh / made"], rows))


if __name__ == "__main__":
    main()
