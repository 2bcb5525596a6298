"""Benchmark 5: resident memory across a full scroll of 1,000 rows, against --memory-budget-mb.

One scripted viewer (strategy prefetch) reads the whole list top to bottom a screen at a time,
waiting at each stop (bounded) until the visible rows are sepia, on a fast sample origin so the whole
list passes through the cache. The server's VmRSS is read at every stop. Per budget: the RSS once the
list has loaded (before any image), the peak, and the peak less the budget.

Stated overhead: the budget bounds the image cache only; the rest of the process (binary, runtime,
1,000 records, HTTP server) is the RSS at ready, plus up to FIXED_OVERHEAD_MB for work in flight
(downloads in progress, decode buffers of the filtering threads, allocator slack).
Target: peak VmRSS <= budget + RSS at ready + FIXED_OVERHEAD_MB.
"""
from __future__ import annotations

import argparse
import asyncio
import time

from common import Server, log, rss_bytes, table
from scroll_traces import Viewer

FIXED_OVERHEAD_MB = 64


async def full_scroll(budget: int, args) -> dict:
    server_args = ["--strategy", "prefetch", "--photo-count", str(args.rows), "--memory-budget-mb", str(budget),
                   "--sample-latency-ms", str(args.latency_ms), "--sample-bandwidth", str(args.bandwidth)]
    with Server(server_args) as server:
        await asyncio.sleep(1)
        ready = rss_bytes(server.pid)
        viewer = Viewer(server.port)
        await viewer.start()
        await asyncio.sleep(0.2)
        samples, late = [], 0
        began = time.monotonic()
        for first in range(0, args.rows - args.screen + 1, args.screen):
            if first:
                await viewer.scroll(0.05)
            if await viewer.stop_at(first, first + args.screen - 1, args.stop_timeout) is None:
                late += 1
            samples.append(rss_bytes(server.pid))
        elapsed = time.monotonic() - began
        stats = server.stats()
        viewer.stream.close()
    return {"budget": budget, "ready": ready, "samples": samples, "late": late, "elapsed": elapsed,
            "cacheBytes": stats.get("cacheBytes", 0), "downloaded": stats["bytesDownloaded"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budgets", default="32,128", help="--memory-budget-mb values, MB")
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--screen", type=int, default=10)
    parser.add_argument("--latency-ms", type=int, default=5)
    parser.add_argument("--bandwidth", type=int, default=50_000_000)
    parser.add_argument("--stop-timeout", type=float, default=10)
    args = parser.parse_args()

    log(f"== 5. memory: a full scroll of {args.rows} rows, {args.screen} at a time (strategy prefetch, origin "
        f"{args.latency_ms} ms / {args.bandwidth / 1e6:g} MB/s); fixed overhead stated: RSS at ready + "
        f"{FIXED_OVERHEAD_MB} MB")
    results = [asyncio.run(full_scroll(int(b), args)) for b in args.budgets.split(",")]
    rows = []
    verdicts = []
    for r in results:
        peak = max(r["samples"])
        limit = r["budget"] * 2**20 + r["ready"] + FIXED_OVERHEAD_MB * 2**20
        verdicts.append((r["budget"], peak, limit))
        quarter = len(r["samples"]) // 4
        rows.append([f"{r['budget']} MB", f"{r['ready'] / 2**20:.0f} MB",
                     " ".join(f"{s / 2**20:.0f}" for s in r["samples"][quarter - 1::quarter]),
                     f"{peak / 2**20:.0f} MB", f"{(peak - r['ready']) / 2**20:.0f} MB",
                     f"{r['cacheBytes'] / 2**20:.0f} MB", f"{r['downloaded'] / 1e6:.0f} MB", r["late"],
                     f"{r['elapsed']:.0f} s"])
    log(table(["budget", "RSS at ready", "RSS at 1/4 2/4 3/4 end (MiB)", "peak RSS", "peak - ready",
               "cache at end", "downloaded", "stops late", "time"], rows))
    for budget, peak, limit in verdicts:
        log(f"target budget {budget} MB: peak {peak / 2**20:.0f} MiB <= {limit / 2**20:.0f} MiB "
            f"(budget + RSS at ready + {FIXED_OVERHEAD_MB} MB): {'met' if peak <= limit else 'MISSED'}")


if __name__ == "__main__":
    main()
