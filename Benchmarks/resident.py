"""Benchmark 6: resident memory over many requests.

One server filters photo 0; wrk then asks for its thumbnail with keep-alive until 10,000 requests
have been answered (VmRSS read: the baseline), on until 1,000,000 (VmRSS read again), then another
250,000 with `Connection: close` (a new connection per request). The target: after 1,000,000
requests, resident memory within 20 MB of where it was after the first 10,000.
"""
from __future__ import annotations

import argparse
import asyncio
import re
import subprocess

from common import HOST, Server, log, rss_bytes, table
from http_throughput import filter_one


def wrk(url: str, seconds: int, close: bool = False) -> int:
    """Runs wrk for `seconds`; returns the requests answered."""
    command = ["wrk", "-t2", "-c50", f"-d{seconds}s", url]
    if close:
        command[1:1] = ["-H", "Connection: close"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60).stdout
    match = re.search(r"(\d+) requests in", out)
    return int(match.group(1)) if match else 0


def run_until(url: str, total: int, done: int, close: bool = False) -> int:
    while done < total:
        done += wrk(url, 2 if total - done < 200_000 else 5, close)
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--close-requests", type=int, default=250_000)
    args = parser.parse_args()
    log(f"== 6. resident memory over {args.requests:,} keep-alive requests, then {args.close_requests:,} with "
        f"Connection: close (wrk -t2 -c50, the filtered thumbnail)")
    with Server(["--photo-count", "100", "--sample-latency-ms", "0"]) as server:
        asyncio.run(filter_one(server.port))
        url = f"http://{HOST}:{server.port}/photos/0/thumbnail"
        readings = [("ready", 0, rss_bytes(server.pid))]
        done = run_until(url, 10_000, 0)
        readings.append(("baseline", done, rss_bytes(server.pid)))
        done = run_until(url, args.requests, done)
        readings.append(("keep-alive", done, rss_bytes(server.pid)))
        closed = run_until(url, args.close_requests, 0, close=True)
        readings.append(("connection: close", done + closed, rss_bytes(server.pid)))
    log(table(["after", "requests", "VmRSS"], [[name, f"{count:,}", f"{rss / 2**20:.1f} MiB"] for name, count, rss in readings]))
    growth = (readings[2][2] - readings[1][2]) / 2**20
    log(f"target: VmRSS after {readings[2][1]:,} requests within 20 MB of after {readings[1][1]:,}: "
        f"{growth:+.1f} MiB: {'met' if abs(growth) <= 20 else 'MISSED'}")


if __name__ == "__main__":
    main()
