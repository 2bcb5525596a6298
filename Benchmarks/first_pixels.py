"""Benchmark 13 (issue 29): after a jump, time to first pixels and to the final image, against the floor.

The physical floor of a photo is one latency and one transfer: the sample origin's 150 ms, then the
photo's bytes at 2 MB/s (`--bandwidth`; about 315 ms for a 330 KB sample photo). First pixels are also
printed as a share of the transfer (less one latency): at a slower `--bandwidth` a preview's place in
the transfer shows at more than a frame's resolution. The page, in headless Chromium
1366x800 with a fresh server and cache, makes `--jumps` jumps as a person does (person_input.py: a
shift-click in the scrollbar's track at a seeded random place, once End instead) and waits at
each until every row on screen shows its final sepia thumbnail, then a second. For every row on screen at a stop that was not already done:
first pixels (the first frame it shows a preview of its bytes arrived, or its final image) and final
image, both from the jump (the key or click, as the page saw it), over its floor; by kind of photo (progressive JPEG, baseline JPEG with an
Exif thumbnail, plain baseline JPEG, PNG), p50 and p95. The machine's load is printed beside the run.
Printed, not judged.

`--movement drag` drags the scrollbar's thumb to each seeded place instead and lets go, timed from the
release; `--movement page` makes plain clicks in the track below the thumb (the browser pages down),
timed from the end of the browser's own animation (its last scroll event).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import common
import person_input
from common import HOST, log, percentile, table
from lazy_loading import STOP_TIMEOUT, browser

sys.path.insert(0, str(common.ROOT / "Tests" / "browser"))
import gestures  # noqa: E402

LATENCY_MS, BANDWIDTH = 150, 2_000_000
KINDS = ("progressive", "Exif thumbnail", "baseline", "PNG")


def kind_of(file: str) -> str:
    """The sample origin's kind of photo `file` (photo-NNN.jpg): see SampleLibrary.render."""
    if file.endswith(".png"):
        return "PNG"
    return ("progressive", "Exif thumbnail", "baseline")[int(file[6:9]) % 3]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jumps", type=int, default=16, help="jumps to play (default 16)")
    parser.add_argument("--seed", type=int, default=29, help="seed of the rows jumped to")
    parser.add_argument("--click-ms", type=float, default=0,
                        help="how long each click in the scrollbar's track holds the button (default 0; a person's lasts about 100)")
    parser.add_argument("--movement", choices=MOVEMENTS, default="jump",
                        help="jump: shift-clicks in the track (and End once), timed from the press (default); drag: the "
                             "thumb dragged to each place and let go, timed from the release; page: plain clicks in the "
                             "track, timed from the end of the browser's animation")
    parser.add_argument("--binary", type=Path, help="the server (default: the release build of scripts/bench.sh)")
    common.page_options(parser)
    parser.add_argument("--bandwidth", type=int, default=BANDWIDTH,
                        help="the origin's bytes a second per transfer (default 2 MB/s; slower, a preview's share of "
                             "the transfer is seen at more than a frame's resolution)")
    args = parser.parse_args()
    bandwidth = args.bandwidth
    person_input.CLICK_HOLD_S = args.click_ms / 1000
    if args.binary:
        common.BINARY = args.binary.resolve()
    common.use_page(args)
    log(f"13. First pixels and final image after a jump, against the floor (latency + bytes at {bandwidth / 1e6:g} MB/s), "
        f"{args.jumps} {MOVEMENTS[args.movement]}, clicks held {args.click_ms:.0f} ms, headless Chromium; "
        f"load {os.getloadavg()[0]:.1f} at the start")
    rows: list[dict] = []
    with common.behind_sample_origin(LATENCY_MS, bandwidth) as (server, photos, origin_host):
        samples = next(Path(origin_host.cache).glob("sample-photos-*"))
        files = {p["index"]: p["url"].rsplit("/", 1)[1] for p in photos}
        sizes = {i: (samples / f).stat().st_size for i, f in files.items() if (samples / f).exists()}
        rows = play(server.port, len(photos), args.jumps, args.seed, args.movement, args.click_ms / 1000)
    load = os.getloadavg()[0]
    for row in rows:
        row["transfer"] = sizes.get(row["index"], 0) / bandwidth * 1000
        row["floor"] = LATENCY_MS + row["transfer"]
        row["kind"] = kind_of(files[row["index"]])
    rows = [r for r in rows if r["index"] in sizes]  # the mis-named ones fail, as in the tutorial
    out = []
    for kind in KINDS + ("all",):
        chosen = [r for r in rows if kind in ("all", r["kind"])]
        if not chosen:
            continue
        first = [r["first"] / r["floor"] for r in chosen]
        final = [r["final"] / r["floor"] for r in chosen]
        # First pixels past one latency (when the first byte can come), as a share of the transfer.
        into = [(r["first"] - LATENCY_MS) / r["transfer"] for r in chosen if r["transfer"] > 0]
        out.append([kind, len(chosen), f"{percentile([r['floor'] for r in chosen], 50):.0f} ms",
                    f"{percentile([r['first'] for r in chosen], 50):.0f} ms", f"{percentile(first, 50):.2f}x",
                    f"{percentile(first, 95):.2f}x", f"{percentile(into, 50):.2f}x",
                    f"{percentile([r['final'] for r in chosen], 50):.0f} ms",
                    f"{percentile(final, 50):.2f}x", f"{percentile(final, 95):.2f}x"])
    log(table(["photos", "rows", "floor p50", "first p50", "first/floor p50", "p95", "first in transfer p50",
               "final p50", "final/floor p50", "p95"], out))
    log("(first in transfer: first pixels less one latency, over the photo's transfer at the origin's bandwidth)")
    chain = []
    for kind in KINDS:
        chosen = [r["links"] for r in rows if r["kind"] == kind]
        medians = [percentile([c[f"{a}->{b}"] for c in chosen if f"{a}->{b}" in c], 50) for a, b in LINKS]
        chain.append([kind, len(chosen)] + ["-" if m != m else f"{m:.0f}" for m in medians])
    # Each link's share of the final image's time (the median link over the median final, every photo).
    finals = percentile([r["final"] for r in rows], 50)
    shares = [percentile([r["links"][f"{a}->{b}"] for r in rows if f"{a}->{b}" in r["links"]], 50) for a, b in LINKS]
    chain.append(["share of final", len(rows)] + ["-" if m != m else f"{m / finals:.0%}" for m in shares])
    log("the links, medians by kind of photo (ms, page clock; the server's steps are the arrival of their events; "
        "lastByte->screen < lastByte->filtered when the final image is on screen before its 'filtered' event):")
    log(table(["photos", "rows"] + [f"{a}->{b}" for a, b in LINKS], chain))
    log(f"(load {load:.1f} at the end; rows on screen at each stop that were not done before it; times from the jump, "
        f"first pixels and final image as the page showed them, checked after every frame)")


# The links from a jump to a row's first pixels and to its final image (the server's steps are the
# arrival of their events at the page).
LINKS = (("jump", "report"), ("report", "scheduled"), ("scheduled", "firstByte"), ("firstByte", "partial"),
         ("partial", "firstPixels"), ("lastByte", "filtered"), ("filtered", "screen"), ("lastByte", "screen"))


def links_of(c: dict, start: float) -> dict[str, float]:
    """Row chain `c`'s links after a jump at `start` (ms), those the page saw."""
    t = {"jump": start, "firstPixels": c.get("firstPixels"), "screen": c.get("screen"),
         "report": min((r for r in c.get("reports", []) if r >= start), default=None)}
    for key in ("scheduled", "firstByte", "partial", "lastByte", "filtered"):
        t[key] = c[key] if c.get(key) is not None and c[key] >= start else None
    return {f"{a}->{b}": t[b] - t[a] for a, b in LINKS if t[a] is not None and t[b] is not None}


# Two delays of the page's own, over the whole session: each operation event's arrival beyond the
# quickest one's (the server's clock placed on the page's, as lazy_loading.py does), and each viewport
# report's wait for a connection (fetch called -> request sent) and its round trip (sent -> answered).
DELAYS = """
    const lags = window.__bench.lags, least = Math.min(...lags);
    const reports = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/viewport'));
    // After a photo's last byte (its event here): the page asking for its final thumbnail, the
    // answer (the server holds it until the filter is done), and the frame that shows it.
    const chain = window.__bench.chain, asks = [], answers = [], frames = [];
    for (const e of performance.getEntriesByType('resource')) {
      const m = e.name.match(/[/]photos[/]([0-9]+)[/]thumbnail$/), c = m && chain[m[1]];
      // The row's own ask (started at most 200 ms before the event: the page hears 'downloaded'
      // first) that ended before its final image was shown; a row seen again later is asked again.
      if (!c || c.lastByte == null || c.screen == null || e.startTime < c.lastByte - 200 || e.responseEnd > c.screen) continue;
      asks.push(e.startTime - c.lastByte); answers.push(e.responseEnd - e.startTime); frames.push(c.screen - e.responseEnd);
    }
    // The same on the server's clock, placed on the page's by the quickest event (so a few ms early):
    // the ask against the photo's last byte, the filter's wait for a slot and its run, the answer's end
    // after the filter and the screen after the answer; for each row whose final image came by its ask.
    // And for every row (most come on their stop's one request, GET /photos/thumbnails, not an ask of
    // their own): the filter's wait and run, and the screen after the filter.
    const server = { ask: [], wait: [], run: [], answer: [], screen: [] };
    const filters = { wait: [], run: [], screen: [] };
    for (const c of Object.values(chain)) {
      if (c.lastByteOnServer == null || c.filteredOnServer == null || c.filterStartedOnServer == null
          || c.screen == null || c.screen < c.filteredOnServer + least) continue;
      filters.wait.push(c.filterStartedOnServer - c.lastByteOnServer);
      filters.run.push(c.filteredOnServer - c.filterStartedOnServer);
      filters.screen.push(c.screen - (c.filteredOnServer + least));
    }
    for (const e of performance.getEntriesByType('resource')) {
      const m = e.name.match(/[/]photos[/]([0-9]+)[/]thumbnail$/), c = m && chain[m[1]];
      if (!c || c.lastByteOnServer == null || c.filteredOnServer == null || c.filterStartedOnServer == null
          || c.screen == null || e.responseEnd > c.screen || e.startTime < c.lastByteOnServer + least - 1000) continue;
      server.ask.push(e.startTime - (c.lastByteOnServer + least));
      server.wait.push(c.filterStartedOnServer - c.lastByteOnServer);
      server.run.push(c.filteredOnServer - c.filterStartedOnServer);
      server.answer.push(e.responseEnd - (c.filteredOnServer + least));
      server.screen.push(c.screen - e.responseEnd);
    }
    return { server, filters, events: lags.map((l) => l - least), asks, answers, frames,
             waits: reports.map((e) => e.requestStart - e.startTime), trips: reports.map((e) => e.responseEnd - e.requestStart) };
"""


def log_delays(delays: dict) -> None:
    """Prints the page's own delays (`DELAYS`): p50 / p90 / max of each."""
    def line(values: list[float]) -> str:
        return f"{percentile(values, 50):.0f} / {percentile(values, 90):.0f} / {max(values):.0f} ms" if values else "-"
    log(f"the page's own delays, p50 / p90 / max: an event's arrival beyond the quickest {line(delays['events'])} "
        f"({len(delays['events'])} events); a report waiting for a connection {line(delays['waits'])}, "
        f"its round trip {line(delays['trips'])} ({len(delays['waits'])} reports); after the last byte's event, "
        f"the final thumbnail asked {line(delays['asks'])}, answered {line(delays['answers'])}, "
        f"its answer on screen {line(delays['frames'])} ({len(delays['asks'])} thumbnails)")
    server = delays["server"]
    log(f"after the last byte on the server's clock (placed on the page's by the quickest event), p50 / p90 / max: "
        f"the final thumbnail asked {line(server['ask'])}, the filter waiting for a slot {line(server['wait'])}, "
        f"running {line(server['run'])}, the answer's end after the filter {line(server['answer'])}, "
        f"on screen after the answer {line(server['screen'])} ({len(server['ask'])} rows)")
    filters = delays["filters"]
    log(f"every row, on the server's clock placed on the page's, p50 / p90 / max: the filter waiting for a slot "
        f"{line(filters['wait'])}, running {line(filters['run'])}, on screen after the filter {line(filters['screen'])} "
        f"({len(filters['screen'])} rows)")


MOVEMENTS = {"jump": "shift-clicks in the track (End once), from the press",
             "drag": "thumb drags, from the release", "page": "plain clicks in the track, from the animation's end"}

# The release of a drag, as the page saw it.
RELEASE = """window.__release = null;
addEventListener('pointerup', (e) => { window.__release = e.timeStamp; }, { capture: true, once: true });"""


def moved(driver, movement: str, fraction: float, hold_s: float, timeout_ms: float) -> dict:
    """A drag of the thumb to `fraction` let go after `hold_s` (its stop the release), or a plain
    click in the track held `hold_s` (its stop the animation's last scroll event); as `person_input.jump`."""
    driver.execute_script("window.__bench.arm(arguments[0])", timeout_ms)
    driver.execute_script(RELEASE)
    if movement == "drag":
        gestures.drag_scrollbar(driver, "#list", fraction, hold_s=hold_s)
    else:
        gestures.track_page(driver, "#list", hold_s=hold_s)
    stop = driver.execute_async_script("window.__bench.jump.then(arguments[arguments.length - 1]);")
    release = driver.execute_script("return window.__release")
    if movement == "drag" and release is None:
        raise RuntimeError("the page saw no release of the drag")
    stop["stop"] = release if movement == "drag" else stop.get("scrolled", stop["stop"])
    return stop


def play(port: int, count: int, jumps: int, seed: int, movement: str = "jump", hold_s: float = 0.0) -> list[dict]:
    """Jumps to `jumps` seeded rows on a fresh page (or drags there, or pages down: `movement`); each
    row on screen at a stop, with its times."""
    driver = browser()
    try:
        driver.get(f"http://{HOST}:{port}/")
        timeout = STOP_TIMEOUT * 1000
        driver.execute_async_script("""
            const [rows, timeoutMs, done] = arguments;
            window.__bench.rows = rows;
            window.__bench.waitDone(timeoutMs).then(done);""", count, timeout)
        height = driver.execute_script("return window.__bench.scroller().clientHeight")
        driver.execute_script("window.__bench.listHeight = arguments[0]", height)
        person_input.focus_list(driver)
        rng = random.Random(seed)
        stops = []
        for n in range(jumps):
            if movement == "jump":
                # Clicks in the scrollbar's track, and once End (where a key takes the list).
                how = "key:End" if n == jumps // 2 else f"track:{rng.random():.4f}"
                stops.append(person_input.jump(driver, how, timeout))
            else:
                stops.append(moved(driver, movement, rng.random(), hold_s, timeout))
            time.sleep(1.0)
        chain = driver.execute_script("return window.__bench.chain")
        delays = driver.execute_script(DELAYS)
    finally:
        driver.quit()
    log_delays(delays)
    rows = []
    for stop in stops:
        start = stop["stop"]  # the key, click or release, when the page saw it; else the scroll
        for i in range(stop["first"], stop["last"] + 1):
            c = chain.get(str(i)) or {}
            if c.get("screen") is None or c["screen"] < start or c.get("firstPixels") is None:
                continue
            if c["firstPixels"] < start:
                continue  # already showing before this jump
            rows.append({"index": i, "first": c["firstPixels"] - start, "final": c["screen"] - start,
                         "links": links_of(c, start)})
    return rows


if __name__ == "__main__":
    main()
