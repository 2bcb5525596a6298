"""REDbot ("lint for HTTP", PyPI `redbot`) on the page, a thumbnail, a static file (the stylesheet
the page links), `/api/photos` and `/healthz` of a running server: no note of its error level
(`bad`). Notes of warning level are listed in the test's output and in
`artifacts/hostile/redbot.txt`; they do not fail it.

REDbot runs in a process of its own per URL (`redbot_check.py`: the same checks as `redbot URL`,
with each note's level)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import support
from support import REPO

RUNNER = Path(__file__).with_name("redbot_check.py")
REPORT = REPO / "artifacts" / "hostile" / "redbot.txt"
PATHS = ["/", "/photos/0/thumbnail", "STYLESHEET", "/api/photos", "/healthz"]


def run_redbot(url: str) -> dict:
    try:
        done = subprocess.run([sys.executable, str(RUNNER), url], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return {"url": url, "runner_error": "REDbot did not finish within 120 s"}
    if done.returncode != 0:
        return {"url": url, "runner_error": f"exit {done.returncode}: {done.stderr[-2000:]}"}
    return json.loads(done.stdout)


def flatten(notes: list[dict], depth: int = 0):
    for note in notes:
        yield depth, note
        yield from flatten(note["subnotes"], depth + 1)


def describe(result: dict, details: bool = True) -> str:
    lines = [f"{result['url']}: {result.get('status')}"]
    for depth, note in flatten(result.get("notes", [])):
        lines.append(f"{'  ' * (depth + 1)}[{note['level']}] {note['category']}: {note['summary']}")
        if details and note["level"] in ("bad", "warning") and note.get("detail"):
            lines.append(f"{'  ' * (depth + 3)}{note['detail']}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def results(server_factory):
    server = server_factory.start("redbot")
    try:
        # A viewer puts row 0 on screen, so that its thumbnail is there.
        support.assert_normal_client_served(server.host, server.port, when="before REDbot")
        status, _, page = support.http_request(server.host, server.port, "GET", "/")
        assert status == 200
        stylesheet = re.search(rb'<link rel="stylesheet" href="([^"]+)"', page)
        assert stylesheet, "the page links no stylesheet"
        base = f"http://{server.host}:{server.port}"
        urls = {path: base + (stylesheet.group(1).decode() if path == "STYLESHEET" else path) for path in PATHS}
        with ThreadPoolExecutor(max_workers=len(urls)) as pool:
            found = dict(zip(urls, pool.map(run_redbot, urls.values())))
        server.assert_alive()
    finally:
        server.stop()
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("\n\n".join(describe(result) for result in found.values()) + "\n")
    return found


@pytest.mark.parametrize("path", PATHS)
def test_redbot_finds_no_errors(results, path):
    result = results[path]
    assert "runner_error" not in result, f"{result['url']}: {result['runner_error']}"
    warnings = [n for _, n in flatten(result["notes"]) if n["level"] == "warning"]
    if warnings:
        print(f"REDbot warnings for {result['url']}:\n" + "\n".join(
            f"  {n['category']}: {n['summary']} ({n.get('detail', '')})" for n in warnings))
    assert result["done"], f"REDbot's checks did not finish:\n{describe(result)}"
    assert result["fetch_error"] is None, f"{result['url']}: {result['fetch_error']}"
    assert result["status"] is not None and 200 <= int(result["status"]) < 300, describe(result)
    bad = [n for _, n in flatten(result["notes"]) if n["level"] == "bad"]
    assert not bad, "REDbot's errors:\n" + describe(result)
