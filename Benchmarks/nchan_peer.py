"""The crowd's peer (issue 61): nginx with the nchan module, a pub/sub server built for server-sent
events, holding the same number of SSE subscribers and publishing the same event rate, in the same run
as crowd.py's crowd (`crowd.py --beside-nchan`).

nginx (Debian's nginx-light and libnginx-mod-nchan) runs one worker on the cores the crowd's server had
(`taskset`). N subscribers (`GET /sub`, EventSource) from their own loopback addresses, in processes of
their own on the other cores, hold one channel; when all are held and the worker has settled, its
resident memory less before, over N, is its memory per subscriber. Then this process publishes
(`POST /pub`) `rate` messages a second for `seconds`, each carrying its wall-clock time and padded to
`event_bytes`: every subscriber gets every message, as every visitor of ours gets every event of the
rows it is near. Each subscriber takes the lag of each message it reads (read time less publish time:
the publisher's request, nginx's fan-out and the client's read, on one machine's clock); the processes
also time their own loop (a 50 ms sleep's overshoot), which the lags include.

A publish not answered 2xx, or a subscriber not answered 200, makes the run invalid (`valid` false).

  python3 Benchmarks/nchan_peer.py [--subscribers 1000] [--rate 15] [--seconds 30]
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import multiprocessing
import os
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from common import HOST, cpu_seconds, free_port, log, ms, percentile, rss_bytes

MODULE = Path("/usr/lib/nginx/modules/ngx_nchan_module.so")


def address(n: int) -> str:
    """The n-th subscriber's own loopback address (as crowd.py's visitors: per-address limits see people)."""
    return f"127.4.{n // 250}.{n % 250 + 1}"


def start(port: int, cores: set[int] | None) -> tuple[subprocess.Popen, Path]:
    """nginx with nchan on `port`, one worker, on `cores` when given; its prefix directory."""
    if not MODULE.exists():
        raise SystemExit(f"{MODULE} is missing: apt-get install nginx-light libnginx-mod-nchan")
    prefix = Path(tempfile.mkdtemp(prefix="bench-nchan-"))
    (prefix / "logs").mkdir()
    user = "user root;" if os.geteuid() == 0 else ""
    conf = prefix / "nginx.conf"
    conf.write_text(f"""
load_module {MODULE};
{user}
worker_processes 1;
worker_rlimit_nofile 65536;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log;
events {{ worker_connections 65536; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path {prefix}/body; proxy_temp_path {prefix}/proxy; fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi; scgi_temp_path {prefix}/scgi;
    server {{
        listen {HOST}:{port};
        location = /ready {{ return 204; }}
        location = /sub {{ nchan_subscriber eventsource; nchan_channel_id crowd; }}
        location = /pub {{ nchan_publisher; nchan_channel_id crowd; nchan_message_buffer_length 16; }}
    }}
}}
""")
    command = ["nginx", "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"]
    if cores:
        command = ["taskset", "-c", ",".join(map(str, sorted(cores)))] + command
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=1)
            connection.request("GET", "/ready")
            if connection.getresponse().status == 204:
                return process, prefix
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"nginx with nchan did not start; see {prefix}/logs/error.log")


def pids(master: subprocess.Popen) -> list[int]:
    """nginx's processes: the master (or taskset's exec of it) and its workers."""
    children = Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text().split()
    return [master.pid] + [int(pid) for pid in children]


def subscriber_process(port: int, numbers: list[int], joined, done, results, nice: int) -> None:
    """Holds one subscriber per number, says how many on `joined`, reads until `done`, then sends its
    figures on `results`: each message's lag, its loop's own lag, statuses not 200, streams lost."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    os.nice(nice)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        lags: list[float] = []
        refused: dict[int, int] = {}

        class Subscriber(asyncio.Protocol):
            """One EventSource: its head's status, then each `data:` line's publish time against its read's."""

            def __init__(self) -> None:
                self.head, self.tail, self.status = b"", b"", 0
                self.answered, self.closed = loop.create_future(), loop.create_future()

            def connection_made(self, transport) -> None:
                self.transport = transport
                transport.write(f"GET /sub HTTP/1.1\r\nHost: {HOST}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())

            def connection_lost(self, exc) -> None:
                if not self.answered.done():
                    self.answered.set_result(0)
                if not self.closed.done():
                    self.closed.set_result(exc)

            def data_received(self, data: bytes) -> None:
                now = time.time()
                if not self.answered.done():
                    self.head += data
                    end = self.head.find(b"\r\n\r\n")
                    if end < 0:
                        return
                    self.status = int(self.head.split(None, 2)[1])
                    self.answered.set_result(self.status)
                    data, self.head = self.head[end + 4:], b""
                data = self.tail + data
                start = 0
                while (at := data.find(b"data: ", start)) >= 0:
                    end = data.find(b"\n", at)
                    if end < 0:
                        break
                    lags.append(now - float(data[at + 6:end].split(b" ", 1)[0]))
                    start = end
                # What may begin the next line (a cut `data: ` or its number) waits for the next read.
                self.tail = data[at:] if at >= 0 else data[max(start, len(data) - 6):]

        held: list[Subscriber] = []

        async def subscribe(n: int) -> None:
            subscriber = Subscriber()
            try:
                await loop.create_connection(lambda: subscriber, HOST, port, local_addr=(address(n), 0))
                status = await asyncio.wait_for(subscriber.answered, 30)
            except (OSError, asyncio.TimeoutError):
                status = 0
            if status == 200:
                held.append(subscriber)
            else:
                refused[status] = refused.get(status, 0) + 1

        for batch in range(0, len(numbers), 100):
            await asyncio.gather(*(subscribe(n) for n in numbers[batch:batch + 100]))
        joined.put(len(held))
        # Only what is published from now on counts (nchan sends no backlog to a new subscriber).
        lags.clear()
        loop_lag: list[float] = []
        while not done.is_set():
            asleep = time.monotonic()
            await asyncio.sleep(0.05)
            loop_lag.append(time.monotonic() - asleep - 0.05)
        lost = sum(1 for s in held if s.closed.done())
        for subscriber in held:
            subscriber.transport.close()
        results.put({"held": len(held), "refused": refused, "lags": lags, "loop_lag": loop_lag, "lost": lost})

    asyncio.run(main())


def publish(port: int, rate: float, seconds: float, event_bytes: int) -> tuple[int, dict[int, int]]:
    """`rate` messages a second for `seconds` on one keep-alive connection, each its wall-clock time
    padded to `event_bytes`; how many were answered 2xx, and the other answers by status."""
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    published, other = 0, {}
    began = time.monotonic()
    n = 0
    while (due := began + n / rate) < began + seconds:
        if (wait := due - time.monotonic()) > 0:
            time.sleep(wait)
        stamp = f"{time.time():.6f} "
        body = (stamp + "x" * max(0, event_bytes - len(stamp))).encode()
        connection.request("POST", "/pub", body, {"Content-Type": "text/plain"})
        response = connection.getresponse()
        response.read()
        if 200 <= response.status < 300:
            published += 1
        else:
            other[response.status] = other.get(response.status, 0) + 1
        n += 1
    connection.close()
    return published, other


def beside_nchan(subscribers: int, rate: float, seconds: float, event_bytes: int = 200,
                 cores: set[int] | None = None, processes: int = 2, nice: int = 0) -> dict:
    """The peer's run (see the module's doc): its memory per subscriber, the lags, its CPU, and whether
    every answer was 2xx."""
    port = free_port()
    nginx, prefix = start(port, cores)
    try:
        every = pids(nginx)
        rss_before = sum(rss_bytes(pid) for pid in every)
        context = multiprocessing.get_context("spawn")
        joined, results, done = context.Queue(), context.Queue(), context.Event()
        shares = [list(range(subscribers))[k::processes] for k in range(processes)]
        workers = [context.Process(target=subscriber_process, args=(port, share, joined, done, results, nice), daemon=True)
                   for share in shares if share]
        for worker in workers:
            worker.start()
        held = sum(joined.get(True, 600) for _ in workers)
        time.sleep(2)
        rss_held = sum(rss_bytes(pid) for pid in every)
        cpu_before, wall_before = sum(cpu_seconds(pid) for pid in every), time.monotonic()
        published, other = publish(port, rate, seconds, event_bytes)
        time.sleep(1)  # the last messages' delivery
        cpu = sum(cpu_seconds(pid) for pid in every) - cpu_before
        wall = time.monotonic() - wall_before
        done.set()
        figures = [results.get(True, 120) for _ in workers]
        for worker in workers:
            worker.join(30)
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
        shutil.rmtree(prefix, ignore_errors=True)
    lags = [lag for f in figures for lag in f["lags"]]
    refused: dict[int, int] = {}
    for f in figures:
        for status, count in f["refused"].items():
            refused[status] = refused.get(status, 0) + count
    return {"subscribers": subscribers, "held": held, "refused": refused, "lost": sum(f["lost"] for f in figures),
            "published": published, "publish_refused": other, "received": len(lags), "expected": published * held,
            "lags": lags, "loop_lag": [lag for f in figures for lag in f["loop_lag"]],
            "rss_per_subscriber": (rss_held - rss_before) / max(held, 1), "cpu": cpu, "wall": wall,
            "valid": not refused and not other and held == subscribers}


def summary(peer: dict) -> str:
    """One line of the peer's figures."""
    return (f"nchan: {peer['held']}/{peer['subscribers']} subscribers held (refused {peer['refused'] or '-'}, lost {peer['lost']}), "
            f"{peer['published']} messages published (refused {peer['publish_refused'] or '-'}), {peer['received']} of "
            f"{peer['expected']} read; RSS per subscriber {peer['rss_per_subscriber'] / 1024:.1f} KB; lag p50 / p99 "
            f"{ms(percentile(peer['lags'], 50))} / {ms(percentile(peer['lags'], 99))} (client side; its loops' own lag p99 "
            f"{ms(percentile(peer['loop_lag'], 99))}); nginx {peer['cpu'] / peer['wall']:.2f} cores"
            f"{'' if peer['valid'] else '; INVALID: not every answer was 2xx'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=15, help="messages a second on the channel")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--event-bytes", type=int, default=200)
    parser.add_argument("--pin", action="store_true", help="nginx on the first core, the subscribers on the others")
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    cores = None
    if args.pin:
        every = sorted(os.sched_getaffinity(0))
        cores = {every[0]}
        os.sched_setaffinity(0, set(every[1:]))
    log(f"nchan beside: {args.subscribers} subscribers, {args.rate:g} messages/s of {args.event_bytes} B for "
        f"{args.seconds:g} s; load {os.getloadavg()[0]:.2f}")
    log(summary(beside_nchan(args.subscribers, args.rate, args.seconds, args.event_bytes, cores)))


if __name__ == "__main__":
    main()
