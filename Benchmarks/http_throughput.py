"""Benchmark 3: HTTP throughput, wrk against the server beside nginx serving the same bytes.

A server on the sample origin filters one photo (a viewport over row 0); its thumbnail bytes, a
page's bytes and `GET /api/photos`'s JSON are written to a directory that nginx (Debian nginx-light,
its own config, a loopback port) serves. wrk then runs against /photos/0/thumbnail, / and /api/photos
on our server and the same three files on nginx, interleaved, in one run. Requests/s, latency and errors as wrk reports them.

Note: every GET / makes a new viewer (the page carries its id), so the page run starts the server
with a --max-viewers and --viewers-per-minute large enough for the whole run (wrk is one client
address); viewers that never connect are dropped after --viewer-connect-timeout.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import contextlib

from common import HOST, Server, ceiling, free_port, http, log, new_viewer, post_viewport, table


# Each resource: our path and nginx's copy of its bytes.
RESOURCES = {"thumbnail": ("/photos/0/thumbnail", "/thumbnail.jpg"), "page /": ("/", "/index.html"),
             "/api/photos": ("/api/photos", "/photos.json")}


def run_wrk(url: str, args) -> dict:
    asks = ["-H", "Accept-Encoding: gzip"] if args.gzip else []
    out = subprocess.run(["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s", "--latency", *asks, url],
                         capture_output=True, text=True, timeout=args.duration + 60).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    errors = 0
    for match in re.finditer(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out):
        errors += sum(int(g) for g in match.groups())
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors += int(non2xx.group(1)) if non2xx else 0
    p50 = re.search(r"50%\s+([\d.]+\w+)", out)
    p99 = re.search(r"99%\s+([\d.]+\w+)", out)
    return {"rps": rps, "requests": requests, "errors": errors, "p50": p50.group(1) if p50 else "?",
            "p99": p99.group(1) if p99 else "?"}


def start_nginx(root: Path, port: int, tls: tuple[Path, Path] | None = None, ready=None) -> subprocess.Popen:
    """nginx serving `root` on `port`; with `tls` (certificate, key) over HTTPS with HTTP/2. `ready(port)`
    says it answers (default: /thumbnail.jpg over plain HTTP)."""
    prefix = Path(tempfile.mkdtemp(prefix="bench-nginx-"))
    listen = f"{HOST}:{port}"
    if tls:
        listen += f" ssl http2;\n        ssl_certificate {tls[0]};\n        ssl_certificate_key {tls[1]};\n" \
                  "        ssl_protocols TLSv1.2 TLSv1.3"
    ready = ready or (lambda port: http("GET", port, "/thumbnail.jpg", timeout=1)[0] == 200)
    (prefix / "logs").mkdir()
    user = "user root;" if os.geteuid() == 0 else ""
    conf = prefix / "nginx.conf"
    conf.write_text(f"""
{user}
worker_processes auto;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    sendfile on;
    gzip_static on;
    tcp_nopush on;
    keepalive_requests 1000000;
    types {{ image/jpeg jpg; text/html html; application/json json; }}
    client_body_temp_path {prefix}/body; proxy_temp_path {prefix}/proxy; fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi; scgi_temp_path {prefix}/scgi;
    server {{
        listen {listen};
        root {root};
        etag on;
        add_header Cache-Control no-cache;
    }}
}}
""")
    process = subprocess.Popen(["nginx", "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if ready(port):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("nginx did not start")


def gzipped(port: int, path: str) -> bytes:
    """`path`'s body asked for with `Accept-Encoding: gzip`, as it came (must be gzipped)."""
    import http.client
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        connection.request("GET", path, headers={"Accept-Encoding": "gzip"})
        response = connection.getresponse()
        if response.getheader("Content-Encoding") != "gzip":
            raise SystemExit(f"{path} on port {port} was not gzipped")
        return response.read()
    finally:
        connection.close()


def write_gzipped_copies(docroot: Path, fetch) -> None:
    """Beside the page and the JSON, the server's gzipped answers (`fetch(path)`), for nginx's gzip_static."""
    import gzip as gzip_module
    for name, path in (("index.html", "/"), ("photos.json", "/api/photos")):
        body = fetch(path)
        plain = (docroot / name).read_bytes()
        # gzip checks the CRC-32 and length; the list may have moved on since the plain copy (its
        # rows' states), and the page carries its own viewer's id, so only the size is compared.
        if abs(len(gzip_module.decompress(body)) - len(plain)) > len(plain) // 10:
            raise SystemExit(f"the gzipped {path} is not the plain one")
        (docroot / (name + ".gz")).write_bytes(body)


async def filter_one(port: int) -> None:
    viewer = await new_viewer(port)
    await post_viewport(port, viewer, False, 0, 0)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, _ = http("GET", port, "/photos/0/thumbnail")
        if status == 200:
            return
        await asyncio.sleep(0.2)
    raise SystemExit("photo 0 was never filtered")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds; the best of each is shown")
    parser.add_argument("--only", action="append", choices=RESOURCES,
                        help="measure only this resource (repeatable; a page run leaves its viewers behind for the next)")
    parser.add_argument("--routed", action="store_true",
                        help="also ours through the router (`?by=route`: a query the event loop leaves to the route)")
    parser.add_argument("--gzip", action="store_true",
                        help="ask with `Accept-Encoding: gzip`, as browsers do; nginx sends a gzipped copy (gzip_static)")
    parser.add_argument("--ceiling", action="store_true",
                        help="also SwiftNIO alone serving the same bytes (Benchmarks/Ceiling): the stack's own ceiling")
    args = parser.parse_args()
    resources = args.only or list(RESOURCES)

    log(f"== 3. HTTP throughput: wrk -t{args.threads} -c{args.connections} -d{args.duration}s, {args.rounds} interleaved "
        f"rounds (best shown), beside nginx (worker_processes auto) serving the same bytes from disk")
    results: dict[str, dict] = {}
    docroot = Path(tempfile.mkdtemp(prefix="bench-nginx-root-"))
    max_viewers = 1_000_000  # the most the server accepts
    server_args = ["--photo-count", "1000", "--sample-latency-ms", "0", "--max-viewers", str(max_viewers),
                   "--viewers-per-minute", "1000000"]
    with Server(server_args) as server:
        asyncio.run(filter_one(server.port))
        (docroot / "thumbnail.jpg").write_bytes(http("GET", server.port, "/photos/0/thumbnail")[1])
        (docroot / "index.html").write_bytes(http("GET", server.port, "/")[1])
        (docroot / "photos.json").write_bytes(http("GET", server.port, "/api/photos")[1])
        if args.gzip:
            write_gzipped_copies(docroot, lambda path: gzipped(server.port, path))
        nginx_port = free_port()
        nginx = start_nginx(docroot, nginx_port)
        if args.gzip and gzipped(nginx_port, "/index.html") != (docroot / "index.html.gz").read_bytes():
            raise SystemExit("nginx does not send the gzipped copy")
        bare = contextlib.ExitStack()
        try:
            nio_port = bare.enter_context(ceiling("h1", docroot, gzip=args.gzip)) if args.ceiling else None
            targets = []
            for what in resources:
                ours, theirs = RESOURCES[what]
                targets += [(what, "ours", f"http://{HOST}:{server.port}{ours}"), (what, "nginx", f"http://{HOST}:{nginx_port}{theirs}")]
                if args.routed:
                    targets.append((what, "routed", f"http://{HOST}:{server.port}{ours}?by=route"))
                if nio_port:
                    targets.append((what, "nio", f"http://{HOST}:{nio_port}{theirs}"))
            for _ in range(args.rounds):
                for what, who, url in targets:
                    result = run_wrk(url, args)
                    best = results.get(f"{what}|{who}")
                    if best is None or result["rps"] > best["rps"]:
                        result["errors"] += best["errors"] if best else 0
                        results[f"{what}|{who}"] = result
                    elif best:
                        best["errors"] += result["errors"]
            viewers = json.loads(http("GET", server.port, "/api/stats")[1]).get("viewers")
        finally:
            bare.close()
            nginx.terminate()
            nginx.wait(timeout=10)
        sizes = {"thumbnail": (docroot / "thumbnail.jpg").stat().st_size, "page /": (docroot / ("index.html.gz" if args.gzip else "index.html")).stat().st_size,
                 "/api/photos": (docroot / "photos.json").stat().st_size}
    shutil.rmtree(docroot, ignore_errors=True)
    rows = []
    names = {"ours": "{}", "routed": "{} (router)", "nio": "{} (SwiftNIO alone)"}
    for what in resources:
        for who in [who for who in names if f"{what}|{who}" in results]:
            ours, nginx_result = results[f"{what}|{who}"], results[f"{what}|nginx"]
            rows.append([names[who].format(what), sizes[what], f"{ours['rps']:.0f}", f"{nginx_result['rps']:.0f}",
                         f"{ours['rps'] / nginx_result['rps']:.2f}", f"{ours['p50']} / {ours['p99']}",
                         f"{nginx_result['p50']} / {nginx_result['p99']}", ours["errors"], nginx_result["errors"]])
    log(table(["resource", "bytes", "ours req/s", "nginx req/s", "ours/nginx", "ours p50/p99", "nginx p50/p99",
               "ours errors", "nginx errors"], rows))
    log(f"  (errors: socket errors + non-2xx over all rounds; viewers the server reports at the end: {viewers})")
    if args.ceiling:
        log("  ours / SwiftNIO alone: " + ", ".join(
            f"{what} {results[f'{what}|ours']['rps'] / results[f'{what}|nio']['rps']:.2f}" for what in resources))
    if "thumbnail" not in resources or "page /" not in resources:
        return
    thumb = results["thumbnail|ours"]["rps"] / results["thumbnail|nginx"]["rps"]
    errors = results["thumbnail|ours"]["errors"]
    page = results["page /|ours"]["rps"] / results["page /|nginx"]["rps"]
    page_errors = results["page /|ours"]["errors"]
    log(f"target: thumbnails >= 0.5 of nginx's req/s with no errors: {thumb:.2f}, {errors} errors: "
        f"{'met' if thumb >= 0.5 and errors == 0 else 'MISSED'}")
    log(f"target: page >= 0.5 of nginx's req/s with no errors: {page:.2f}, {page_errors} errors: "
        f"{'met' if page >= 0.5 and page_errors == 0 else 'MISSED'}")


if __name__ == "__main__":
    main()
