"""Issue 41, item 2: a client alternating its lab lane's rows makes a new scroll stop with every
report. On main every stop was kept and `GET /api/labs/ID` encoded them all (127,500 stops in two
minutes made a 5.9 MB report that took seconds); the lane now keeps its last 100 stops and counts
of them all, so the report stays small however many stops are made."""
from __future__ import annotations

import http.client
import json

import support

REPORTS = 1000
KEPT = 100  # LabStops.keptByDefault


def test_a_lane_alternating_its_rows_keeps_a_small_report(start_server):
    server = start_server("lab-stops", flags=["--max-labs", "1"])
    connection = http.client.HTTPConnection(server.host, server.port, timeout=30)

    def request(method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
        response = connection.getresponse()
        return response.status, response.read()

    try:
        status, body = request("POST", "/api/labs", {"lanes": [{"strategy": "visible"}]})
        assert status == 201, body
        lab = json.loads(body)
        viewer = lab["lanes"][0]["viewer"]
        stream = support.EventStream(server.host, server.port, viewer)
        try:
            for report in range(REPORTS):
                first = 0 if report % 2 == 0 else 6
                status, body = request("POST", "/api/viewport",
                                       {"viewer": viewer, "scrolling": False, "first": first, "last": first + 5})
                assert status == 204, body
            status, body = request("GET", f"/api/labs/{lab['lab']}")
            assert status == 200, body
        finally:
            stream.close()
        lane = json.loads(body)["lanes"][0]
        print(f"{REPORTS} stops: report {len(body)} bytes, {len(lane['stops'])} stops kept, counts {lane.get('stopCounts')}")
        assert len(lane["stops"]) <= KEPT, f"{len(lane['stops'])} stops in the report ({len(body)} bytes)"
        assert len(body) < 20_000, f"the lab's report is {len(body)} bytes"
        counts = lane["stopCounts"]
        assert counts["reported"] == REPORTS
        assert counts["timed"] + counts["abandoned"] >= REPORTS - 1
        support.assert_normal_client_served(server.host, server.port, when="after the stops")
    finally:
        connection.close()
