"""A lab's summary (PUT /api/labs/ID/summary, what its page sums up at a trace's end, which a presented lab's
followers show) from a hostile client: whatever is not a summary of that lab's lanes gets a 400 with the
reason, an ended or unknown lab a 404, and a good one is in the lab's report."""
from __future__ import annotations

import json
import secrets

import support

JSON = {"Content-Type": "application/json"}
LANE = {"stops": [{"ms": 120.5, "abandoned": False, "notDone": False, "bound": None}], "downloaded": 1000, "wasted": 10,
        "wastedCPU": 0.25, "aborted": 1, "cancelled": 2,
        "ledger": {"downloads": {"cancelledRunning": 1, "cancelledQueued": 0}, "filtrations": {"cancelledRunning": 1, "cancelledQueued": 0}}}


def request(server, method: str, path: str, body=None) -> tuple[int, bytes]:
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    status, _, raw = support.http_request(server.host, server.port, method, path, data, headers=JSON)
    return status, raw


def test_a_labs_summary_is_checked_and_kept_in_its_report(start_server):
    server = start_server("lab-summary")
    status, raw = request(server, "POST", "/api/labs", {"lanes": [{"strategy": "eager"}, {"strategy": "prefetch", "prefetch": 3}]})
    assert status == 201, raw
    lab = json.loads(raw)["lab"]
    path = f"/api/labs/{lab}/summary"
    assert "summary" not in json.loads(request(server, "GET", f"/api/labs/{lab}")[1])

    bad = [b"", b"{", b"[]", b"null", json.dumps({"trace": "impatient"}).encode(),
           json.dumps({"trace": "impatient", "lanes": [LANE]}).encode(),  # one lane of two
           json.dumps({"trace": "", "lanes": [LANE, LANE]}).encode(),
           json.dumps({"trace": "x" * 33, "lanes": [LANE, LANE]}).encode(),
           json.dumps({"trace": "impatient", "lanes": [LANE, dict(LANE, downloaded=-1)]}).encode(),
           json.dumps({"trace": "impatient", "lanes": [LANE, dict(LANE, downloaded="many")]}).encode(),
           json.dumps({"trace": "impatient", "lanes": [LANE, dict(LANE, stops=[{"ms": -5, "abandoned": False, "notDone": False}])]}).encode(),
           b'{"trace": "impatient", "lanes": [' + json.dumps(LANE).encode() + b', ' + json.dumps(LANE).encode().replace(b"120.5", b"1e999") + b']}',
           json.dumps({"trace": "impatient", "lanes": [LANE] * 10_000}).encode()]
    for body in bad:
        status, raw = request(server, "PUT", path, body)
        assert status in (400, 413), (body[:80], status, raw)
        assert json.loads(raw)["error"], raw
    for unknown in (secrets.token_hex(16), "..%2F..%2Fapi%2Fviewers", "%00"):
        status, raw = request(server, "PUT", f"/api/labs/{unknown}/summary", {"trace": "impatient", "lanes": [LANE, LANE]})
        assert status == 404, (unknown, status, raw)

    # A good one is kept, and in the lab's report as sent
    status, raw = request(server, "PUT", path, {"trace": "impatient", "lanes": [LANE, LANE]})
    assert status == 204, raw
    report = json.loads(request(server, "GET", f"/api/labs/{lab}")[1])
    assert report["summary"]["trace"] == "impatient" and report["summary"]["lanes"][1]["downloaded"] == 1000, report["summary"]
    # Once the lab ended, its summary is refused with a 404
    assert request(server, "DELETE", f"/api/labs/{lab}")[0] == 204
    assert request(server, "PUT", path, {"trace": "impatient", "lanes": [LANE, LANE]})[0] == 404
    support.assert_normal_client_served(server.host, server.port, when="after hostile lab summaries")
