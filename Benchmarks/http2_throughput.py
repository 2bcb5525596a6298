"""Benchmark: HTTPS with HTTP/2, h2load against the server beside nginx serving the same bytes over
the same TLS and HTTP/2 (Debian nginx-light, `listen ... ssl http2`, the same self-signed P-256
certificate, TLS 1.3), interleaved in one run on loopback:

- cached thumbnail, page and `GET /api/photos` requests per second (h2load -c C -m M: C connections, M streams each);
- handshakes per second: h2load with one request per connection (every request a new TLS handshake);
- memory per open HTTP/2 connection: N idle connections (handshake, SETTINGS, one request) held open,
  resident memory before and after (nginx: master and workers together).

Every GET / makes a viewer: the server runs with limits large enough for the whole run.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from common import HOST, ROOT, Server, ceiling, free_port, log, rss_bytes, table
from http_throughput import start_nginx, write_gzipped_copies

sys.path.insert(0, str(ROOT / "Tests" / "hostile"))
from h2client import H2Client  # noqa: E402

UNVERIFIED = ssl._create_unverified_context()


def https(port: int, path: str, method: str = "GET", body: dict | None = None, headers: dict | None = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"https://{HOST}:{port}{path}", data=data, method=method, headers=headers or {})
    if data:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30, context=UNVERIFIED) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


class TLSServer(Server):
    """The benchmarks' server on HTTPS: readiness is asked over TLS."""

    def wait_ready(self, timeout: float = 900) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process and self.process.poll() is not None:
                sys.exit(f"server exited with {self.process.returncode}; see {self.log_path}")
            try:
                status, body = https(self.port, "/api/photos")
                if status == 200 and json.loads(body)["status"] == "ready":
                    return
            except OSError:
                pass
            time.sleep(0.5)
        sys.exit("photo list never became ready")


# What is measured, in this order.
MEASURES = ("thumbnail", "page /", "/api/photos", "handshakes")


def h2load(url: str, requests: int, clients: int, streams: int, threads: int, asks: list[str] = []) -> dict:
    out = subprocess.run(["h2load", "-n", str(requests), "-c", str(clients), "-m", str(streams), "-t", str(threads), *asks, url],
                         capture_output=True, text=True, timeout=600).stdout
    finished = re.search(r"finished in ([\d.]+)(m?s), ([\d.]+) req/s", out)
    counts = re.search(r"(\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout", out)
    codes = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
    if not finished or not counts or not codes:
        raise SystemExit(f"h2load gave no figures for {url}:\n{out[-2000:]}")
    seconds = float(finished.group(1)) / (1000 if finished.group(2) == "ms" else 1)
    errors = sum(int(g) for g in counts.groups()[1:]) + sum(int(g) for g in codes.groups()[1:])
    protocol = re.search(r"Application protocol: (\S+)", out)
    return {"rps": float(finished.group(3)), "seconds": seconds, "errors": errors,
            "protocol": protocol.group(1) if protocol else "?"}


def h2_answers(port: int) -> bool:
    """Whether an HTTP/2-only server on `port` answers /thumbnail.jpg with 200."""
    client = H2Client(HOST, port)
    try:
        return client.fetch("GET", "/thumbnail.jpg", timeout=5).status == 200
    finally:
        client.close()


def nginx_rss(master: int) -> int:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return rss_bytes(master) + sum(rss_bytes(int(pid)) for pid in children)


def memory_per_connection(port: int, path: str, count: int, rss) -> float:
    """Resident bytes per idle HTTP/2 connection: `count` opened (each with one answered request for `path`)."""
    before = rss()
    held = []
    try:
        for _ in range(count):
            client = H2Client(HOST, port)
            stream = client.request("GET", path)
            client.wait(lambda: client.finished(stream), 30)
            held.append(client)
        time.sleep(1)  # let both servers settle their buffers before reading /proc
        return (rss() - before) / count
    finally:
        for client in held:
            client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=100_000, help="requests per h2load run")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--streams", type=int, default=10, help="concurrent streams per connection")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--handshakes", type=int, default=2_000, help="connections of one request each")
    parser.add_argument("--idle", type=int, default=500, help="idle connections for the memory figure")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds; the best of each is shown")
    parser.add_argument("--only", action="append", choices=MEASURES,
                        help="measure only this (repeatable; no memory figure; a page run leaves its viewers behind for the next)")
    parser.add_argument("--routed", action="store_true",
                        help="also ours through the router (`?by=route`: a query the event loop leaves to the route)")
    parser.add_argument("--gzip", action="store_true",
                        help="ask with `Accept-Encoding: gzip`, as browsers do; nginx sends a gzipped copy (gzip_static)")
    parser.add_argument("--ceiling", action="store_true",
                        help="also SwiftNIO alone serving the same bytes (Benchmarks/Ceiling) over the same TLS: with a "
                             "child channel per stream as ours, and answered from the connection's frames")
    args = parser.parse_args()
    measures = args.only or list(MEASURES)
    log(f"== HTTP/2 over TLS: h2load -n {args.requests} -c {args.clients} -m {args.streams} -t {args.threads}, "
        f"{args.rounds} interleaved rounds (best shown), beside nginx serving the same bytes over the same TLS")

    scratch = Path(tempfile.mkdtemp(prefix="bench-h2-"))
    subprocess.run([str(ROOT / "scripts" / "self-signed-cert.sh"), str(scratch / "tls")], check=True)
    cert, key = scratch / "tls" / "cert.pem", scratch / "tls" / "key.pem"
    docroot = scratch / "root"
    docroot.mkdir()
    server_args = ["--photo-count", "100", "--sample-latency-ms", "0", "--max-viewers", "1000000",
                   "--viewers-per-minute", "1000000", "--viewer-connect-timeout", "1",
                   "--tls-cert", str(cert), "--tls-key", str(key)]
    results: dict[str, dict] = {}
    with TLSServer(server_args) as server:
        viewer = json.loads(https(server.port, "/api/viewers", "POST")[1])["viewer"]
        https(server.port, "/api/viewport", "POST", {"viewer": viewer, "scrolling": False, "first": 0, "last": 0})
        deadline = time.monotonic() + 60
        while https(server.port, "/photos/0/thumbnail")[0] != 200:
            if time.monotonic() > deadline:
                raise SystemExit("photo 0 was never filtered")
            time.sleep(0.2)
        (docroot / "thumbnail.jpg").write_bytes(https(server.port, "/photos/0/thumbnail")[1])
        (docroot / "index.html").write_bytes(https(server.port, "/")[1])
        (docroot / "healthz.json").write_bytes(https(server.port, "/healthz")[1])
        (docroot / "photos.json").write_bytes(https(server.port, "/api/photos")[1])
        gzip = {"Accept-Encoding": "gzip"}
        if args.gzip:
            write_gzipped_copies(docroot, lambda path: https(server.port, path, headers=gzip)[1])
        nginx_port = free_port()
        nginx = start_nginx(docroot, nginx_port, tls=(cert, key), ready=lambda port: https(port, "/thumbnail.jpg")[0] == 200)
        if args.gzip and https(nginx_port, "/index.html", headers=gzip)[1] != (docroot / "index.html.gz").read_bytes():
            raise SystemExit("nginx does not send the gzipped copy")
        asks = ["-H", "Accept-Encoding: gzip"] if args.gzip else []
        ours, theirs = f"https://{HOST}:{server.port}", f"https://{HOST}:{nginx_port}"
        bare = contextlib.ExitStack()
        nio = {}
        if args.ceiling:
            for who, mode in (("nio streams", "h2"), ("nio frames", "h2frames")):
                port = bare.enter_context(ceiling(mode, docroot, tls=(cert, key), gzip=args.gzip, ready=h2_answers))
                nio[who] = f"https://{HOST}:{port}"
        runs = [
            ("thumbnail", ours + "/photos/0/thumbnail", theirs + "/thumbnail.jpg", args.requests, args.clients, args.streams),
            ("page /", ours + "/", theirs + "/index.html", args.requests // 10, args.clients, args.streams),
            ("/api/photos", ours + "/api/photos", theirs + "/photos.json", args.requests // 10, args.clients, args.streams),
            ("handshakes", ours + "/healthz", theirs + "/healthz.json", args.handshakes, args.handshakes, 1),
        ]
        try:
            runs = [run for run in runs if run[0] in measures]
            for _ in range(args.rounds):
                for what, our_url, their_url, requests, clients, streams in runs:
                    routed = [("routed", our_url + "?by=route")] if args.routed and what != "handshakes" else []
                    bare_urls = [(who, base + their_url[len(theirs):]) for who, base in nio.items()]
                    for who, url in [("ours", our_url), ("nginx", their_url)] + routed + bare_urls:
                        result = h2load(url, requests, min(clients, requests), streams, args.threads, asks)
                        best = results.get(f"{what}|{who}")
                        if best is None or result["rps"] > best["rps"]:
                            result["errors"] += best["errors"] if best else 0
                            results[f"{what}|{who}"] = result
                        else:
                            best["errors"] += result["errors"]
            if args.only:
                memory = None
            else:
                memory = {"ours": memory_per_connection(server.port, "/healthz", args.idle, lambda: rss_bytes(server.pid)),
                          "nginx": memory_per_connection(nginx_port, "/healthz.json", args.idle, lambda: nginx_rss(nginx.pid))}
        finally:
            bare.close()
            nginx.terminate()
            nginx.wait(timeout=10)
        sizes = {"thumbnail": (docroot / "thumbnail.jpg").stat().st_size, "page /": (docroot / ("index.html.gz" if args.gzip else "index.html")).stat().st_size,
                 "handshakes": (docroot / "healthz.json").stat().st_size, "/api/photos": (docroot / "photos.json").stat().st_size}
    shutil.rmtree(scratch, ignore_errors=True)
    rows = []
    names = {"ours": "{}", "routed": "{} (router)", "nio streams": "{} (SwiftNIO alone, a channel per stream)",
             "nio frames": "{} (SwiftNIO alone, from the frames)"}
    for what in measures:
        for who in [who for who in names if f"{what}|{who}" in results]:
            ours_result, nginx_result = results[f"{what}|{who}"], results[f"{what}|nginx"]
            unit = "handshakes/s" if what == "handshakes" else "req/s"
            rows.append([names[who].format(what), sizes[what], f"{ours_result['rps']:.0f} {unit}",
                         f"{nginx_result['rps']:.0f} {unit}", f"{ours_result['rps'] / nginx_result['rps']:.2f}",
                         ours_result["errors"], nginx_result["errors"], f"{ours_result['protocol']}/{nginx_result['protocol']}"])
    if nio:
        rows.append(["ours / SwiftNIO alone (per stream, frames)", "", "", "", ", ".join(
            f"{what} {results[f'{what}|ours']['rps'] / results[f'{what}|nio streams']['rps']:.2f} "
            f"{results[f'{what}|ours']['rps'] / results[f'{what}|nio frames']['rps']:.2f}" for what in measures), "", "", ""])
    if memory is None:
        log(table(["measure", "bytes", "ours", "nginx", "ours/nginx", "ours errors", "nginx errors", "protocol"], rows))
        return
    # nginx drops an idle connection's TLS and HTTP/2 buffers: its growth can be under a page per connection.
    memory_ratio = f"{memory['ours'] / memory['nginx']:.1f}" if memory["nginx"] >= 512 else "nginx < 0.5 KiB"
    rows.append(["memory per idle HTTP/2 connection", "", f"{memory['ours'] / 1024:.1f} KiB",
                 f"{memory['nginx'] / 1024:.1f} KiB", memory_ratio, "", "", "h2/h2"])
    log(table(["measure", "bytes", "ours", "nginx", "ours/nginx", "ours errors", "nginx errors", "protocol"], rows))
    for what in ("thumbnail", "page /"):
        ratio = results[f"{what}|ours"]["rps"] / results[f"{what}|nginx"]["rps"]
        errors = results[f"{what}|ours"]["errors"]
        log(f"target: {what} over HTTP/2 >= 0.5 of nginx's req/s with no errors: {ratio:.2f}, {errors} errors: "
            f"{'met' if ratio >= 0.5 and errors == 0 else 'MISSED'}")


if __name__ == "__main__":
    main()
