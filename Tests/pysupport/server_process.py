"""What the Python suites (Tests/browser, Tests/hostile, Tests/cluster) share about a `classic-photos serve` they start."""
from __future__ import annotations

import os
import select
import subprocess
from typing import Callable

import pytest


def read_address_line(process, remaining: Callable[[], float], describe: Callable[[], str], log) -> bytes:
    """Waits for the line the server prints on stdout once it listens, copies it to `log`, returns it.
    Fails the test if the server exits first or `remaining()` runs out."""
    line = b""
    while not line.endswith(b"\n"):
        readable, _, _ = select.select([process.stdout], [], [], remaining())
        chunk = os.read(process.stdout.fileno(), 4096) if readable else b""
        if readable and not chunk:
            process.wait(timeout=10)
            pytest.fail(f"the server exited with status {process.returncode} before it listened; " + describe(),
                        pytrace=False)
        line += chunk
    log.write(line)
    log.flush()
    return line


def stop_process(process, grace: float) -> None:
    """Asks a server that still runs to stop (SIGTERM), and kills it if it has not within `grace` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
