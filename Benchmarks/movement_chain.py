"""Where the time goes between a movement's end and its rows being final (issue 35): for `person_input.py
--figures`, the links of each whole row on screen at the movement's end, on the page's clock.

  input -> end       the movement's last input event (notch, key, release) to its last scroll event
  end -> report      its last scroll event to the viewport report naming the row (the stop detection)
  report -> started  the report to the server starting the row's download (the server's clock placed on
                     the page's by the quickest operation event's delivery, as lazy_loading.py does)
  started -> first   the download's start to its first byte's event (the origin's latency)
  first -> last      first byte to the download's end (the transfer)
  last -> filtered   the download's end to the `filtered` event on the page (decode, sepia, encode, event)
  filtered -> asked / asked -> received / received -> screen   the page asking for the thumbnail, its
                     bytes, the frame that shows it

The probe is lazy_loading.PROBE (installed before the page's scripts); MOVEMENT below adds the input times.
"""
from __future__ import annotations

import statistics

# Installed after the page has loaded: the movement's input events, as the page saw them.
MOVEMENT = """
    const inputs = window.__inputs = [];
    for (const type of ['wheel', 'keydown', 'keyup', 'pointerdown', 'pointerup', 'touchstart', 'touchend'])
        window.addEventListener(type, (e) => inputs.push([type, performance.now()]), { capture: true, passive: true });
"""

# The chain so far, the thumbnails' resource timings, the clocks' offset, the input times.
COLLECT = """
    const chain = window.__bench.chain;
    const asked = {};
    for (const e of performance.getEntriesByType('resource')) {
        const m = e.name.match(/[/]photos[/]([0-9]+)[/]thumbnail$/);
        if (m) asked[m[1]] = { asked: e.startTime, received: e.responseEnd };
    }
    const rows = [...document.querySelectorAll('#list .row')].filter((row) => {
        const box = document.getElementById('list').getBoundingClientRect(), r = row.getBoundingClientRect();
        return !row.hidden && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
    }).map((row) => Number(row.id.replace('row-', '')));
    return { chain, asked, rows, offset: Math.min(...window.__bench.lags), inputs: window.__inputs || [] };
"""

LINKS = ("input -> end", "end -> report", "report -> started", "started -> first", "first -> last",
         "last -> filtered", "filtered -> asked", "asked -> received", "received -> screen")


def links_of(collected: dict, end: float, final_at: float) -> dict[str, list[float]]:
    """Per link, its time (ms) for each whole row on screen that was fetched after the movement's end."""
    out: dict[str, list[float]] = {name: [] for name in LINKS}
    inputs = [t for _, t in collected["inputs"] if t <= end + 1]
    if inputs:
        out["input -> end"].append(end - inputs[-1])
    for i in collected["rows"]:
        c = collected["chain"].get(str(i)) or {}
        if c.get("filtered") is None or c["filtered"] < end:
            continue
        # The report that started the row: the last one naming it before the server's first word of it.
        first_word = min(c[k] for k in ("scheduled", "firstByte", "lastByte", "filtered") if c.get(k) is not None)
        reports = [t for t in c.get("reports", []) if t <= first_word]
        if not reports:
            continue
        report = reports[-1]
        out["end -> report"].append(report - end)
        if c.get("startedOnServer") is not None:
            out["report -> started"].append(c["startedOnServer"] + collected["offset"] - report)
            if c.get("firstByte") is not None:
                out["started -> first"].append(c["firstByte"] - (c["startedOnServer"] + collected["offset"]))
        if c.get("firstByte") is not None and c.get("lastByte") is not None:
            out["first -> last"].append(c["lastByte"] - c["firstByte"])
        if c.get("lastByte") is not None:
            out["last -> filtered"].append(c["filtered"] - c["lastByte"])
        a = collected["asked"].get(str(i))
        if a and a["asked"] >= end:
            out["filtered -> asked"].append(a["asked"] - c["filtered"])
            out["asked -> received"].append(a["received"] - a["asked"])
            if c.get("screen") is not None:
                out["received -> screen"].append(c["screen"] - a["received"])
    return out


def merge(runs: list[dict[str, list[float]]]) -> list[str]:
    """The median of each link over the runs' rows, as table cells."""
    cells = []
    for name in LINKS:
        values = [v for run in runs for v in run.get(name, [])]
        cells.append(f"{statistics.median(values):.0f}" if values else "-")
    return cells
