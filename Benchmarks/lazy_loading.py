"""Benchmark 9: the page beside the browser's own lazy loading, on the same origin, in one run.

The alternative a web developer would pick costs one line: a plain page of
`<img loading="lazy" style="filter: sepia(0.8)">` pointing straight at the photos' origin, where
Chromium downloads and filters the photos itself. Both pages play the same scripted scrolls in
headless Chromium (a fresh browser profile and, for the product, a fresh server and cache per
session), with the built-in sample origin (150 ms, 2 MB/s per transfer) behind a counting proxy:

  first    the first screen after the page loads (measured from navigation start)
  flick    a fast flick to the bottom (the whole list in about a second), one stop there
  reading  slow reading: half a screen every 2 s (each move a 300 ms smooth scroll), 10 stops
  jumps    jumps as a person makes them (person_input.py): a shift-click in the scrollbar's track to
           the middle, one to row 250, then End; the same input on both pages

Figures per trace and page, over all runs: time to visible p50 / p95 (from each scroll stop until
every row on screen shows its final image: the sepia thumbnail, or the failed image), bytes the
browser received (CDP), bytes the origin sent (the proxy), photos downloaded in full, and of those
how many were never on screen at a stop. Bytes and photos are counted until the origin has been
quiet for a second after the last stop (what the trace set going, at most a minute). Before the
traces, the chain of links of the product's photos (`--no-chain` skips it). Printed, not judged.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import common
import person_input
from common import HOST, log, mb, percentile, table
from counting_proxy import CountingProxy
from first_paint import file_server

sys.path.insert(0, str(common.ROOT / "Tests" / "pysupport"))
from page_events import tap_page_events  # noqa: E402

WIDTH, HEIGHT = 1366, 800
ROW = 80
TRACES = ("first", "flick", "reading", "jumps")
READING_STOPS = 10
STOP_TIMEOUT = 20.0
SETTLE_BOUND = 60.0

# The plain page: a header as tall as the page's, so that both lists show the same 716 px.
PLAIN = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Browser lazy loading</title>
<style>
body {{ margin: 0; padding-top: {header}px; font-family: system-ui, sans-serif; }}
header {{ position: fixed; top: 0; left: 0; right: 0; height: {header}px; background: #fffaf3; z-index: 1; }}
.row {{ height: {row}px; display: flex; align-items: center; gap: 14px; box-sizing: border-box; padding: 6px 8px; }}
img {{ width: 112px; height: 67px; object-fit: cover; }}
</style></head><body><header>Photos</header>
{rows}
</body></html>
"""

# Runs before each page's scripts. Knows both pages' rows: the product's virtualised `#row-N` in the
# scrolling `#list`, the plain page's `#r-N` in the document. A row is done when it shows its final
# image; looked at just after each frame.
PROBE = """
(() => {
  performance.setResourceTimingBufferSize(100000); // every answer kept (250 by default): NOT_2XX
  // The chain of each photo on the product page, on the page's clock: the viewport reports that
  // named its row, then what the event stream said of it (operation and photo events), then on screen.
  const chain = {};
  const mark = (i, link) => { const c = chain[i] || (chain[i] = { reports: [] }); if (c[link] == null) c[link] = performance.now(); };
  // Each operation event's arrival on the page's clock less its time on the server's: the least of
  // them is the clocks' offset (plus the quickest delivery), so a start is placed on the page's clock.
  const lags = [];
  const observe = (type, d) => {
    if (!d || d.index == null) return;
    if (type === 'operation' && typeof d.time === 'number') lags.push(performance.now() - d.time * 1000);
    if (type === 'operation' && d.queue === 'download' && d.outcome === 'started') {
      mark(d.index, 'scheduled');
      const c = chain[d.index];
      if (c.startedOnServer == null) c.startedOnServer = d.time * 1000;
    }
    if (type === 'operation' && d.queue === 'download' && d.outcome === 'finished') mark(d.index, 'lastByte');
    // The server's own times of a photo's last byte and of its filtration's start and end (its clock;
    // first_pixels.py places them on the page's), the first of each.
    if (type === 'operation' && typeof d.time === 'number') {
      const key = { 'download finished': 'lastByteOnServer', 'filtration started': 'filterStartedOnServer',
                    'filtration finished': 'filteredOnServer' }[d.queue + ' ' + d.outcome];
      const c = key && (chain[d.index] || (chain[d.index] = { reports: [] }));
      if (c && c[key] == null) c[key] = d.time * 1000;
    }
    if (type !== 'photo') return;
    if (d.state === 'downloading' && d.progress > 0) mark(d.index, 'firstByte');
    if (d.partial) mark(d.index, 'partial');
    if (d.preview) mark(d.index, 'decoded');
    if (d.state === 'filtered') mark(d.index, 'filtered');
  };
  // The page's events, as they arrive (Tests/pysupport/page_events.py).
""" + tap_page_events("observe", ("operation", "photo")) + """
  const nativeFetch = window.fetch;
  window.fetch = function (input, init) {
    if (String(input).includes('/api/viewport') && init && init.body) {
      const body = JSON.parse(init.body);
      const now = performance.now();
      if (body.first != null) for (let i = body.first; i <= body.last; i += 1) (chain[i] || (chain[i] = { reports: [] })).reports.push(now);
    }
    return nativeFetch.apply(this, arguments);
  };
  const failedImages = new WeakSet();
  addEventListener('error', (e) => { if (e.target && e.target.tagName === 'IMG') failedImages.add(e.target); }, true);
  let metrics = null;
  const observed = new WeakSet();
  const readMetrics = () => {
    const s = bench.scroller();
    metrics = { scroller: s, top: s.scrollTop, height: bench.product() ? s.clientHeight : innerHeight };
    return metrics;
  };
  addEventListener('scroll', () => { if (metrics) readMetrics(); }, true);
  const bench = window.__bench = {
    rows: 0, listHeight: 0, chain, lags,
    scroller() { return document.getElementById('list') || document.scrollingElement; },
    product() { return !!document.getElementById('list'); },
    // The scroller's position and height as last read where reading them costs the page nothing
    // (a scroll event, a resize observation): read after every frame, they would force a layout the
    // page had not asked for (33 of them in 5 jumps, 28 ms of its main thread a jump).
    metrics() {
      const s = bench.scroller();
      if (!s) return null;
      if (!observed.has(s)) {
        observed.add(s);
        new ResizeObserver(readMetrics).observe(bench.product() ? s : document.documentElement);
      }
      return metrics && metrics.scroller === s ? metrics : null;
    },
    visible() {
      const m = bench.metrics() || readMetrics();
      const top = m.top;
      const h = bench.listHeight || m.height;
      const first = Math.min(bench.rows - 1, Math.floor(top / %(row)d));
      const last = Math.min(bench.rows - 1, Math.floor((top + h - 1) / %(row)d));
      return { first, last };
    },
    done(i) {
      if (bench.product()) {
        const row = document.getElementById('row-' + i);
        const img = row && !row.hidden && row.querySelector('[data-role="thumb"]');
        const src = img ? img.getAttribute('src') || '' : '';
        if (src.includes('failed.svg')) return true;
        return src.endsWith('/thumbnail') && img.complete && img.naturalWidth > 0;
      }
      const img = document.querySelector('#r-' + i + ' img');
      return !!img && img.complete && (img.naturalWidth > 0 || failedImages.has(img));
    },
    // Whether row i shows pixels of its photo: a preview of the bytes arrived, or the final image.
    shows(i) {
      if (!bench.product()) return bench.done(i);
      const row = document.getElementById('row-' + i);
      const img = row && !row.hidden && row.querySelector('[data-role="thumb"]');
      const src = img ? img.getAttribute('src') || '' : '';
      return (src.includes('/partial?') && img.complete && img.naturalWidth > 0) || bench.done(i);
    },
    allDone() {
      const m = bench.metrics();
      if (!m || (bench.product() && !m.height)) return null;
      const { first, last } = bench.visible();
      let all = true;
      for (let i = first; i <= last; i += 1) {
        if (bench.shows(i)) mark(i, 'firstPixels');
        if (bench.done(i)) mark(i, 'screen');
        else all = false;
      }
      return all ? { first, last } : null;
    },
    // Resolves with {at, first, last} once every visible row is done, or {at: null} after timeoutMs.
    waitDone(timeoutMs) {
      const start = performance.now();
      return new Promise((resolve) => {
        const check = () => {
          const rows = bench.allDone();
          if (rows) return resolve({ at: performance.now(), ...rows });
          if (performance.now() - start > timeoutMs) return resolve({ at: null, ...bench.visible() });
          requestAnimationFrame(() => setTimeout(check, 0));
        };
        check();
      });
    },
    // A jump made by real input (person_input.py): from now on each frame looks at the rows on screen
    // (marking first pixels and final images) and at the scroll events; the jump's stop is its last
    // scroll event, once no other came for 100 ms. `bench.jump` resolves with {stop, ttv, first,
    // last, input, scrolled} once every row on screen is done after the stop ({ttv: null} after
    // timeoutMs); the stop is the input's time (the key, the click) when the page saw it, else the scroll's.
    arm(timeoutMs) {
      const scrolls = [], inputs = [];
      const onScroll = () => scrolls.push(performance.now());
      const onInput = (e) => inputs.push(e.timeStamp);
      addEventListener('scroll', onScroll, true);
      addEventListener('keydown', onInput, true);
      addEventListener('pointerdown', onInput, true);
      const start = performance.now();
      bench.jump = new Promise((resolve) => {
        let doneAt = null, doneRows = null;
        const finish = (result) => {
          removeEventListener('scroll', onScroll, true);
          removeEventListener('keydown', onInput, true);
          removeEventListener('pointerdown', onInput, true);
          resolve({ input: inputs.length ? inputs[0] : null, scrolls: scrolls.length, ...result });
        };
        const check = () => {
          const now = performance.now();
          const rows = bench.allDone();
          const last = scrolls.length ? scrolls[scrolls.length - 1] : null;
          if (last != null) {
            if (doneAt != null && doneAt < last) doneAt = null;
            if (rows && doneAt == null) { doneAt = now; doneRows = rows; }
            // From the person's input (the key, the click) when the page saw it, else from the scroll.
            const from = inputs.length && inputs[0] <= last ? inputs[0] : last;
            if (doneAt != null && now - last >= 100) return finish({ stop: from, scrolled: last, ttv: doneAt - from, ...doneRows });
          }
          if (now - start > timeoutMs) return finish({ stop: last == null ? start : last, ttv: null, ...bench.visible() });
          requestAnimationFrame(() => setTimeout(check, 0));
        };
        check();
      });
    },
    // Scrolls linearly to `to` over `ms` (0: at once), one step a frame; resolves with the time of the last step.
    scrollTo(to, ms) {
      const s = bench.scroller();
      const from = s.scrollTop;
      const start = performance.now();
      return new Promise((resolve) => {
        const step = () => {
          const t = ms > 0 ? Math.min(1, (performance.now() - start) / ms) : 1;
          s.scrollTop = Math.round(from + (to - from) * t);
          if (t < 1) requestAnimationFrame(step);
          else resolve(performance.now());
        };
        step();
      });
    },
  };
  // The first screen is watched from the document's start, a frame at a time: the driver's page load
  // returns only after the load event, and a screen done before then is timed at its own frame, not
  // at that return (`firstDone`, which FIRST takes when it is earlier). The product's list says its
  // length on its rows; the plain page's rows are all in its document once it is parsed.
  const watchFirst = () => {
    if (!bench.rows) {
      const row = document.querySelector('#list .row[aria-setsize]');
      if (row) bench.rows = Number(row.getAttribute('aria-setsize'));
      else if (document.readyState !== 'loading' && !bench.product()) bench.rows = document.querySelectorAll('[id^="r-"]').length;
    }
    if (bench.rows && bench.allDone()) { bench.firstDone = performance.now(); return; }
    if (performance.now() < 60000) requestAnimationFrame(() => setTimeout(watchFirst, 0));
  };
  requestAnimationFrame(() => setTimeout(watchFirst, 0));
})();
""" % {"row": ROW}

# The answers a page got that were not 2xx, as it saw them: a run with one is invalid (common.check_answers).
NOT_2XX = """
return performance.getEntriesByType('resource').filter((e) => e.responseStatus && (e.responseStatus < 200 || e.responseStatus > 299))
  .map((e) => [e.name, e.responseStatus]);"""

STOP = """
const [to, ms, timeoutMs, rows, done] = arguments;
window.__bench.rows = rows;
window.__bench.scrollTo(to, ms).then((stop) => window.__bench.waitDone(timeoutMs).then((r) =>
  done({ ttv: r.at == null ? null : r.at - stop, first: r.first, last: r.last, stop })));
"""

FIRST = """
const [rows, timeoutMs, done] = arguments;
window.__bench.rows = rows;
window.__bench.waitDone(timeoutMs).then((r) => done({ ttv: r.at == null ? null : Math.min(r.at, window.__bench.firstDone ?? Infinity), first: r.first, last: r.last,
  height: window.__bench.product() ? window.__bench.scroller().clientHeight : null }));
"""


def plain_page(photos: list[dict], header: int) -> str:
    rows = "\n".join(
        f'<div class="row" id="r-{p["index"]}"><img src="{p["url"]}" alt="" loading="lazy" '
        f'style="filter: sepia(0.8)"><span>{p["name"]}</span></div>' for p in photos)
    return PLAIN.format(rows=rows, header=header, row=ROW)


def browser(trace_categories: str | None = None):
    """Headless Chromium at the benchmark's window, the probe installed; with `trace_categories`, the
    trace events of those categories come in the performance log (`page_trace.py`)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    if trace_categories:
        options.add_experimental_option("perfLoggingPrefs", {"traceCategories": trace_categories})
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--no-first-run", "--disable-extensions", f"--window-size={WIDTH},{HEIGHT}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(STOP_TIMEOUT + 30)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
    driver.execute_cdp_cmd("Network.enable", {})
    return driver


def browser_bytes(driver) -> int:
    """Bytes the browser received over the network (headers and bodies, as encoded), from CDP's log:
    a finished request's total, or what arrived of one cut off or still open (the event stream)."""
    finished: dict[str, int] = {}
    received: dict[str, int] = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message.get("method") == "Network.loadingFinished":
            finished[params["requestId"]] = int(params.get("encodedDataLength", 0))
        elif message.get("method") == "Network.dataReceived":
            request = params["requestId"]
            received[request] = received.get(request, 0) + int(params.get("encodedDataLength", 0))
    return sum(finished.values()) + sum(n for request, n in received.items() if request not in finished)


def jumps_played(rows: int, height: int) -> list[str]:
    """The jumps trace, as a person makes it: a click in the scrollbar's track to the middle, one to
    row 250, then End. (Not Page Down: the page's list moves its current row to the screen's last
    row first, as a listbox does, where the plain page scrolls a screen.)"""
    bottom = rows * ROW - height
    return [f"track:{min(1.0, rows // 2 * ROW / bottom):.4f}", f"track:{min(1.0, 250 * ROW / bottom):.4f}", "key:End"]


def play(driver, url: str, trace: str, rows: int, list_height: int) -> tuple[list[float | None], set[int], list[dict]]:
    """Loads `url` and plays `trace`: (ttv in ms per stop, rows on screen at a stop, the stops)."""
    driver.get(url)
    timeout = STOP_TIMEOUT * 1000
    first = driver.execute_async_script(FIRST, rows, timeout)
    first["stop"] = 0.0
    height = first["height"] or list_height
    driver.execute_script("window.__bench.listHeight = arguments[0]", height)
    stops = [first]
    bottom = rows * ROW - height
    if trace == "flick":
        stops.append(driver.execute_async_script(STOP, bottom, 1000, timeout, rows))
    elif trace == "reading":
        time.sleep(2.0)  # the reader reads the first screen too
        for n in range(1, READING_STOPS + 1):
            stop = driver.execute_async_script(STOP, n * height // 2, 300, timeout, rows)
            stops.append(stop)
            waited = (stop["ttv"] or timeout) / 1000
            time.sleep(max(0.0, 2.0 - 0.3 - waited))
    elif trace == "jumps":
        person_input.focus_list(driver)
        for how in jumps_played(rows, height):
            stops.append(person_input.jump(driver, how, timeout))
            time.sleep(1.0)
    seen = {i for stop in stops for i in range(stop["first"], stop["last"] + 1)}
    ttvs = [stop["ttv"] for stop in stops] if trace == "first" else [stop["ttv"] for stop in stops[1:]]
    return ttvs, seen, stops


LINKS = [("stop", "report"), ("report", "scheduled"), ("scheduled", "firstByte"), ("firstByte", "lastByte"),
         ("lastByte", "decoded"), ("decoded", "filtered"), ("filtered", "screen")]


def chain(server_args: str, source: Path) -> None:
    """The chain of links from a scroll stop to a photo on screen, on the product page: the first
    screen and the two stops of the jumps trace, every row that was fetched for that stop."""
    with common.Server(["--source", str(source), "--allow-source-host", HOST, *server_args.split()]) as server:
        driver = browser()
        try:
            _, _, stops = play(driver, f"http://{HOST}:{server.port}/", "jumps", 300, 716)
            links = driver.execute_script("""
                const chain = window.__bench.chain;
                // When the page asked for each row's sepia thumbnail, and when its bytes were in.
                for (const e of performance.getEntriesByType('resource')) {
                    const m = e.name.match(/[/]photos[/]([0-9]+)[/]thumbnail$/);
                    if (m && chain[m[1]]) Object.assign(chain[m[1]], { asked: e.startTime, received: e.responseEnd });
                }
                return { chain, offset: Math.min(...window.__bench.lags) };""")
        finally:
            driver.quit()
    rows = []
    names = ("first screen", "click to the middle", "click to row 250", "End")
    for name, stop in zip(names, stops):
        per_link: dict[str, list[float]] = {}
        totals = []
        for i in range(stop["first"], stop["last"] + 1):
            c = dict(links["chain"].get(str(i)) or {})
            if c.get("filtered") is None or c.get("screen") is None or c["filtered"] < stop["stop"]:
                continue  # failed, or done before this stop
            c["stop"] = stop["stop"]
            # A link the page did not see (it happened before the event stream opened, as the first
            # screen's start does, or its event was folded into the next) counts as the one before it.
            later = [c.get(k) for k in ("scheduled", "firstByte", "lastByte", "decoded", "filtered")]
            c["report"] = max((t for t in c["reports"] if t <= min(t for t in later if t is not None)),
                              default=c["stop"])
            previous = c["report"]
            for key in ("scheduled", "firstByte", "lastByte", "decoded"):
                c[key] = previous = min(max(c.get(key) or previous, previous), c["filtered"])
            for a, b in LINKS:
                per_link.setdefault(f"{a} -> {b}", []).append(c[b] - c[a])
            if c.get("startedOnServer") is not None and c.get("scheduled") is not None:
                # report -> scheduled, split where the server started the download (its clock placed on
                # the page's by the quickest operation event's delivery).
                started = c["startedOnServer"] + links["offset"]
                per_link.setdefault("report -> started", []).append(started - c["report"])
                per_link.setdefault("started -> event", []).append(c["scheduled"] - started)
            totals.append(c["screen"] - c["stop"])
            if c.get("asked") is not None and c["filtered"] <= c["asked"] <= c["screen"]:
                for a, b in (("filtered", "asked"), ("asked", "received"), ("received", "screen")):
                    per_link.setdefault(f"{a} -> {b}", []).append(c[b] - c[a])
        if not totals:
            continue
        split = [f"{statistics.median(per_link[k]):.0f}" if per_link.get(k) else "-"
                 for k in ("filtered -> asked", "asked -> received", "received -> screen")]
        scheduled = [f"{statistics.median(per_link[k]):.0f}" if per_link.get(k) else "-"
                     for k in ("report -> started", "started -> event")]
        rows.append([name, len(totals)] + [f"{statistics.median(per_link[f'{a} -> {b}']):.0f}" for a, b in LINKS]
                    + [f"{statistics.median(totals):.0f}", " / ".join(scheduled), " / ".join(split)])
    log("chain of one photo, median over the rows of each stop (ms, page clock; event arrivals stand for the server's steps):")
    log(table(["stop", "rows"] + [f"{a}->{b}" for a, b in LINKS] + ["total", "report->started / ->event",
                                                           "filtered->asked / ->received / ->screen"], rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2, help="sessions of each trace on each page (default 2; 0: the chain alone)")
    parser.add_argument("--traces", default=",".join(TRACES), help=f"comma-separated, of {', '.join(TRACES)}")
    parser.add_argument("--binary", type=Path, help="the server (default: the release build of scripts/bench.sh)")
    parser.add_argument("--server-args", default="", help="extra arguments for the product's server")
    parser.add_argument("--no-chain", action="store_true", help="skip the chain of links of one photo")
    common.page_options(parser)
    args = parser.parse_args()
    if args.binary:
        common.BINARY = args.binary.resolve()
    common.use_page(args)
    traces = [t for t in args.traces.split(",") if t]

    log(f"9. Lazy loading: the page beside <img loading=lazy> with CSS sepia, headless Chromium {WIDTH}x{HEIGHT}, "
        f"sample origin 150 ms / 2 MB/s per transfer behind a counting proxy, {args.runs} runs of {', '.join(traces)}")
    results: dict[tuple[str, str], dict] = {}
    # The origin: the built-in sample origin of a server nobody views.
    with common.Server(["--sample-latency-ms", "150", "--sample-bandwidth", "2000000"]) as origin_host:
        photos = json.loads(common.http("GET", origin_host.port, "/api/photos")[1])["photos"]
        origin_port = int(photos[0]["url"].split(":")[2].split("/")[0])
        with CountingProxy(origin_port) as proxy, tempfile.TemporaryDirectory(prefix="classic-photos-lazy-") as folder:
            proxied = [{**p, "url": p["url"].replace(f":{origin_port}/", f":{proxy.port}/")} for p in photos]
            index_of = {p["url"].split(f":{proxy.port}", 1)[1]: p["index"] for p in proxied}
            source = Path(folder) / "photos.json"
            source.write_text(json.dumps({p["name"]: p["url"] for p in proxied}))
            (Path(folder) / "plain.html").write_text(plain_page(proxied, HEIGHT - 716))
            if not args.no_chain:
                chain(args.server_args, source)
            with file_server(Path(folder)) as files:
                for run in range(args.runs):
                    for trace in traces:
                        for page in ("product", "plain"):
                            figures = results.setdefault((trace, page), {
                                "ttv": [], "browser": 0, "origin": 0, "downloaded": 0, "unseen": 0, "sessions": 0, "load": []})
                            load = os.getloadavg()[0]
                            figures["load"].append(load)
                            session(figures, page, trace, proxy, source, files, index_of, len(photos), args.server_args)
                            log(f"  run {run + 1} {trace:8} {page:8} load {load:5.1f}  ttv {fmt(figures['ttv'][-1])} ...")

    if not results:
        return  # --runs 0: the chain alone
    rows = []
    for trace in traces:
        for page in ("product", "plain"):
            f = results[(trace, page)]
            ttv = [t for t in f["ttv"] if t is not None]
            late = len(f["ttv"]) - len(ttv)
            n = f["sessions"]
            rows.append([trace, "page" if page == "product" else "lazy <img>", len(f["ttv"]), late,
                         fmt(percentile(ttv, 50)), fmt(percentile(ttv, 95)), mb(f["browser"] / n), mb(f["origin"] / n),
                         f"{f['downloaded'] / n:.0f}", f"{f['unseen'] / n:.0f}",
                         f"{min(f['load']):.1f}-{max(f['load']):.1f}"])
        product, plain = results[(trace, "product")], results[(trace, "plain")]
        p95 = [percentile([t for t in r["ttv"] if t is not None], 95) for r in (product, plain)]
        rows.append([trace, "page / lazy", "", "", "", f"{p95[0] / p95[1]:.2f}x" if p95[1] >= 10 else "(< 10 ms)",
                     "", f"{product['origin'] / max(1, plain['origin']):.2f}x", "", "", ""])
    log(table(["trace", "page", "stops", "late", "ttv p50", "ttv p95", "browser got", "origin sent",
               "photos", "never seen", "load (1 min)"], rows))
    log(f"(bytes and photos: per session, until the origin was quiet for 1 s after the last stop; late = stops not done within {STOP_TIMEOUT:.0f} s, "
        f"left out of the percentiles)")


def fmt(value: float | None) -> str:
    if value is None or value != value:
        return "late"
    return f"{value:.1f} ms" if value < 10 else f"{value:.0f} ms"


def settle(proxy: CountingProxy, quiet: float = 1.0, bound: float = SETTLE_BOUND) -> None:
    """Waits, after the last stop, until the origin has sent nothing for `quiet` seconds (at most
    `bound`): what a trace costs includes what it set going (the browser's queued images, the
    server's reading ahead), not only what arrived before its last row was on screen."""
    deadline = time.monotonic() + bound
    last, still = proxy.tally.bytes_sent, time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - still < quiet:
        time.sleep(0.1)
        now = proxy.tally.bytes_sent
        if now != last:
            last, still = now, time.monotonic()


def session(figures: dict, page: str, trace: str, proxy: CountingProxy, source: Path, files: str,
            index_of: dict[str, int], rows: int, server_args: str) -> None:
    """One fresh browser (and for the product a fresh server) playing `trace`; adds to `figures`."""
    with contextlib.ExitStack() as stack:
        if page == "product":
            server = stack.enter_context(common.Server(["--source", str(source), "--allow-source-host", HOST, *server_args.split()]))
            url = f"http://{HOST}:{server.port}/"
        else:
            url = files + "/plain.html"
        proxy.reset()
        driver = browser()
        try:
            ttvs, seen, _ = play(driver, url, trace, rows, 716)
            settle(proxy)
            for address, status in driver.execute_script(NOT_2XX):
                log(f"  the {page} page of {trace} was answered {status}: {address}")
            figures["browser"] += browser_bytes(driver)
        finally:
            driver.quit()
    time.sleep(0.3)  # transfers the browser or server cut off have ended
    tally = proxy.reset()
    downloaded = {index_of[path] for path in tally.complete if path in index_of}
    figures["ttv"].extend(ttvs)
    figures["origin"] += tally.bytes_sent
    figures["downloaded"] += len(downloaded)
    figures["unseen"] += len(downloaded - seen)
    figures["sessions"] += 1


if __name__ == "__main__":
    main()
