"""Benchmark 6: the page's first screen beside a plain HTML list of the same thumbnails, in one run.

One server with a warm cache (every photo of the first screen already sepia), headless Chromium with
a fixed viewport. Two pages, loaded in alternation, each `--rounds` times after two warm-up loads:

  page    GET / : the page (ES modules, event stream, snapshot, virtualised list, image loader)
  plain   a static HTML list of every photo's <img src=/photos/N/thumbnail loading=lazy> in rows of the
          same size, served from a loopback file server (the images come from the same server, so
          both pages have the same six connections to it)

Figure: time from navigation start to every thumbnail on the first screen loaded (a row whose photo
failed counts once its failed image has loaded, or, in the plain list, once its <img> has errored),
median and p90, with the browser's HTTP cache warm (a returning visitor: static files cached, the
thumbnails revalidated) and disabled (a first visit); and the long tasks (> 50 ms) seen during each
load. Then, with the cache warm, each page is scrolled `--scrolls` times from the top by a script, a
position each frame (a flick of 200 px a frame, then reading at 40 px a frame, 60 frames each), and
the long tasks of the scrolling are counted. Figures are printed, not judged.
"""
from __future__ import annotations

import argparse
import contextlib
import http.server
import json
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

import common
from common import HOST, log, percentile, table

PROBE = """
    // Runs before the page's own scripts: records when every first-screen thumbnail has loaded.
    // It looks just after each frame (a timeout from requestAnimationFrame), when the layout is
    // clean, so that looking costs the page no layout of its own.
    window.__bench = { done: null, longTasks: [] };  // [start, duration] of each
    new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
            window.__bench.longTasks.push([e.startTime, Math.round(e.duration)]);
        }
    }).observe({ type: 'longtask', buffered: true });
    const settled = (img) => img.complete && (img.naturalWidth > 0 || img.dataset.failed === '1');
    const check = () => {
        if (window.__bench.done != null) return;
        const list = document.getElementById('list');
        const view = list ? list.getBoundingClientRect() : { top: 0, bottom: innerHeight };
        const rows = [...document.querySelectorAll(list ? '#list .row' : '.row')].filter((row) => {
            const r = row.getBoundingClientRect();
            return r.bottom > view.top + 1 && r.top < view.bottom - 1;
        });
        if (rows.length < 3) return afterFrame();
        const ready = rows.every((row) => {
            const img = row.querySelector('img');
            if (!img || !settled(img)) return false;
            if (!list) return true;
            const src = img.getAttribute('src') || '';
            return src.endsWith('/thumbnail') || src.includes('failed.svg');
        });
        if (ready) window.__bench.done = performance.now();
        else afterFrame();
    };
    const afterFrame = () => requestAnimationFrame(() => setTimeout(check, 0));
    addEventListener('error', (e) => { if (e.target && e.target.tagName === 'IMG') e.target.dataset.failed = '1'; }, true);
    afterFrame();
"""

PLAIN = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Plain list</title>
<style>
body {{ margin: 0; font-family: system-ui, sans-serif; background: #fffaf3; }}
.row {{ height: 80px; display: grid; grid-template-columns: 112px 1fr auto; align-items: center; gap: 14px;
        padding: 6px 16px 6px 8px; border-bottom: 1px solid #e6d9c6; box-sizing: border-box; }}
img {{ width: 112px; height: 67px; object-fit: contain; }}
</style></head><body>
{rows}
</body></html>
"""


def plain_page(base: str, photos: list[dict]) -> str:
    rows = "\n".join(
        f'<div class="row"><img src="{base}/photos/{p["index"]}/thumbnail" alt="" loading="lazy">'
        f'<span>{p["name"]}</span><span>#{p["index"] + 1}</span></div>' for p in photos)
    return PLAIN.format(rows=rows)


@contextlib.contextmanager
def file_server(folder: Path):
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(folder), **k)  # noqa: E731
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer((HOST, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}"
    finally:
        server.shutdown()


def browser(width: int, height: int):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--no-first-run", "--disable-extensions", f"--window-size={width},{height + 200}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(60)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
    driver.execute_cdp_cmd("Network.enable", {})
    return driver


def load(driver, url: str, timeout: float = 60) -> tuple[float, list[int]]:
    """Navigates and returns (ms to the first screen's thumbnails, long tasks in ms)."""
    driver.get("about:blank")
    driver.get(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        bench = driver.execute_script("return window.__bench")
        if bench and bench["done"] is not None:
            time.sleep(0.3)  # long tasks right after the first screen belong to the load too
            return bench["done"], driver.execute_script("return window.__bench.longTasks.map((t) => t[1])")
        time.sleep(0.02)
    raise SystemExit(f"{url}: the first screen never finished loading")


SCROLL = """
    // Scrolls the page's list (or the plain page) a position each frame: a flick, then reading.
    // Long tasks are counted from the first scroll on.
    const done = arguments[arguments.length - 1];
    const list = document.getElementById('list') || document.scrollingElement;
    const from = performance.now();
    const steps = [...Array(60).fill(200), ...Array(60).fill(40)];
    let i = 0;
    const step = () => {
        if (i === steps.length) {
            const tasks = window.__bench.longTasks.filter((t) => t[0] >= from).map((t) => t[1]);
            return done(tasks);
        }
        list.scrollTop += steps[i++];
        requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
"""


def scroll(driver, url: str) -> list[int]:
    """Loads `url`, waits for its first screen, scrolls it (SCROLL) and returns the long tasks (ms) of the scrolling."""
    load(driver, url)
    return driver.execute_async_script(SCROLL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="loads of each page per cache mode (default 15)")
    parser.add_argument("--scrolls", type=int, default=10, help="scrolls of each page, cache warm (default 10)")
    parser.add_argument("--photos", type=int, default=300, help="photos in the list (default 300)")
    parser.add_argument("--size", default="1280x800", help="viewport, WIDTHxHEIGHT (default 1280x800)")
    parser.add_argument("--binary", type=Path, help="the server (default: the release build of scripts/bench.sh)")
    parser.add_argument("--page-from", type=Path, metavar="DIR",
                        help="serve the Public/ and Templates/ of DIR instead (e.g. an older commit's, from git archive)")
    args = parser.parse_args()
    if args.binary:
        common.BINARY = args.binary.resolve()
    if args.page_from:
        common.ROOT = args.page_from.resolve()
    width, height = (int(n) for n in args.size.split("x"))

    log(f"6. First paint: {args.photos} photos, viewport {width}x{height}, {args.rounds} loads of each page "
        f"per cache mode, alternating; server {common.BINARY}, page from {common.ROOT}")
    with common.Server(["--photo-count", str(args.photos), "--sample-latency-ms", "20"]) as server:
        base = f"http://{HOST}:{server.port}"
        photos = json.loads(common.http("GET", server.port, "/api/photos")[1])["photos"]
        folder = Path(tempfile.mkdtemp(prefix="classic-photos-plain-"))
        (folder / "plain.html").write_text(plain_page(base, photos))
        driver = browser(width, height)
        try:
            with file_server(folder) as files:
                pages = {"page": base + "/", "plain": files + "/plain.html"}
                load(driver, pages["page"], timeout=300)  # the server's cache is warm after this
                results = {}
                for mode in ("warm", "cold"):
                    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": mode == "cold"})
                    times = {name: [] for name in pages}
                    tasks = {name: [] for name in pages}
                    for round_ in range(args.rounds + 2):
                        for name, url in pages.items():
                            took, long_tasks = load(driver, url)
                            if round_ >= 2:
                                times[name].append(took)
                                tasks[name].extend(long_tasks)
                    results[mode] = (times, tasks)
                driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
                driver.set_script_timeout(60)
                scrolling = {name: [] for name in pages}
                for _ in range(args.scrolls):
                    for name, url in pages.items():
                        scrolling[name].append(scroll(driver, url))
        finally:
            driver.quit()
            shutil.rmtree(folder, ignore_errors=True)

    rows = []
    for mode, (times, tasks) in results.items():
        for name in ("page", "plain"):
            t = times[name]
            over = [d for d in tasks[name] if d > 50]
            rows.append([f"{mode} cache", name, f"{statistics.median(t):.0f} ms", f"{percentile(t, 90):.0f} ms",
                         f"{len(over)} / {max(over, default=0)} ms"])
        ratio = statistics.median(times["page"]) / statistics.median(times["plain"])
        rows.append([f"{mode} cache", "page / plain", f"{ratio:.2f}x", "", ""])
    log(table(["browser", "list", "first screen p50", "p90", "long tasks > 50 ms: count / max"], rows))
    rows = []
    for name in ("page", "plain"):
        over = [d for run in scrolling[name] for d in run if d > 50]
        rows.append([name, len(scrolling[name]), f"{len(over)} / {max(over, default=0)} ms"])
    log(table(["scrolled (flick, then reading)", "runs", "long tasks > 50 ms: count / max"], rows))


if __name__ == "__main__":
    main()
