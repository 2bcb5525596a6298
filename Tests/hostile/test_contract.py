"""The written contract, fuzzed by machine: schemathesis reads the server's own `/openapi.json` and
sends what it allows and what it does not (its examples, coverage, fuzzing and stateful phases: a
viewer made and then reported for, a lab made, shown and ended), for a bounded time. Any 5xx, any
status the document does not list, or a server that dies fails the test; a normal client is served
during the run and after it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import support

# Seconds schemathesis spends; CI's whole hostile stage has a budget of its own.
FUZZ_SECONDS = int(os.environ.get("CLASSIC_PHOTOS_CONTRACT_SECONDS", "60"))
# One seed unless told otherwise, so a run that finds something can be run again.
SEED = os.environ.get("CLASSIC_PHOTOS_CONTRACT_SEED", "20261125")


def schemathesis() -> list[str]:
    """The schemathesis command line, from this Python's scripts."""
    return [sys.executable, "-m", "schemathesis.cli"]


def test_the_served_contract_names_every_route_and_the_server_keeps_it(server_factory, tmp_path: Path):
    server = server_factory.start("contract", env={"CLASSIC_PHOTOS_MAX_LABS": "2"})
    base = f"http://{server.host}:{server.port}"

    # Given the document the server serves
    status, headers, body = support.http_request(server.host, server.port, "GET", "/openapi.json")
    assert status == 200 and headers["content-type"] == "application/json"
    document = json.loads(body)
    assert document["openapi"].startswith("3.1")

    # When schemathesis tries everything the document allows and what it does not, while a normal client is served
    normal = support.NormalClientThread(server.host, server.port, deadline=FUZZ_SECONDS + 120)
    normal.start()
    report = tmp_path / "report"
    run = subprocess.run(
        [*schemathesis(), "--no-color", "run", f"{base}/openapi.json", "--url", base,
         "--checks", "not_a_server_error,status_code_conformance",
         "--phases", "examples,coverage,fuzzing,stateful",
         "--max-time", str(FUZZ_SECONDS), "--request-timeout", "20", "--workers", "2",
         "--seed", SEED,
         "--report", "junit", "--report-dir", str(report)],
        capture_output=True, text=True, timeout=FUZZ_SECONDS * 4 + 120, cwd=tmp_path)
    normal.join(FUZZ_SECONDS + 180)

    # Then nothing it sent was answered 5xx or outside the contract, and the server is still there for everyone
    output = run.stdout[-12000:] + run.stderr[-3000:]
    server.assert_alive()
    assert run.returncode == 0, f"schemathesis found problems (exit {run.returncode}):\n{output}"
    assert normal.error is None, f"a normal client was not served during the run: {normal.error}"
    support.assert_normal_client_served(server.host, server.port, when="after the contract run")
    print(output[-4000:])
