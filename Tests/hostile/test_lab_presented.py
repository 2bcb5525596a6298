"""A presented lab against hostile followers (issue 37): follow codes cannot be guessed (random codes, the
real code one digit off, other spellings, and guessed follower keys are all a 404 that names nothing, and the
page of a wrong code shows no lab); a follower holding the real follow code, its key and its watchers' ids can
neither end, drive, report for, carry on nor restart the presenter's lab, which goes on and times the
presenter's stops only; followers past `--followers-per-presentation` are refused with the reason. A normal
client is served after each."""
from __future__ import annotations

import json
import secrets

import support

GUESSES = 400


def call(server, method: str, path: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, dict, bytes]:
    data = None if body is None else json.dumps(body).encode()
    status, head, raw = support.http_request(server.host, server.port, method, path, data,
                                             headers=dict({"Content-Type": "application/json"}, **(headers or {})))
    return status, head, raw


def as_json(raw: bytes) -> dict:
    return json.loads(raw or b"{}")


def presented_lab(server) -> tuple[dict, str, list]:
    """A lab of an eager, a prefetch and a browser lane over 12 photos, presented, its page's streams open (a lab
    whose lanes have none ends): (its 201 body, the follow code, the streams)."""
    status, _, raw = call(server, "POST", "/api/labs", {"lanes": [{"strategy": "eager"}, {"strategy": "prefetch"}, {"strategy": "browser"}],
                                                       "photos": 12})
    assert status == 201, raw
    lab = as_json(raw)
    streams = [support.EventStream(server.host, server.port, lane["viewer"], timeout=60) for lane in lab["lanes"] if lane.get("viewer")]
    assert all(stream.status == 200 for stream in streams)
    status, _, raw = call(server, "POST", f"/api/labs/{lab['lab']}/presentation")
    assert status == 201, raw
    return lab, as_json(raw)["code"], streams


def test_follow_codes_and_follower_keys_cannot_be_guessed(start_server):
    server = start_server("lab-guess", env={"CLASSIC_PHOTOS_VIEWER_CONNECT_TIMEOUT": "600"})
    lab, code, streams = presented_lab(server)
    status, _, raw = call(server, "POST", f"/api/lab-presentations/{code}/followers")
    assert status == 201, raw
    key = as_json(raw)["follower"]
    assert len(code) == len(key) == 32 and code != key and code not in json.dumps(lab)

    # Random codes, the real one a digit off, other spellings of it, and lab and viewer ids in its place
    near = [code[:i] + format((int(code[i], 16) + 1) % 16, "x") + code[i + 1:] for i in range(32)]
    others = [code.upper(), code[:-1], code + "0", " " + code, lab["lab"], lab["lanes"][0]["viewer"], key]
    guesses = [secrets.token_hex(16) for _ in range(GUESSES)] + near + others
    for guess in guesses:
        for method, path in (("POST", f"/api/lab-presentations/{guess}/followers"),
                             ("GET", f"/api/lab-presentations/{guess}/followers/{key}")):
            status, head, raw = call(server, method, path.replace(" ", "%20"))
            assert status == 404 and head["content-type"].startswith("application/json") and "error" in as_json(raw), (guess, status, raw)
    # Guessed follower keys of the real code
    for guess in [secrets.token_hex(16) for _ in range(GUESSES)] + [key[:-1] + ("0" if key[-1] != "0" else "1")]:
        status, _, raw = call(server, "GET", f"/api/lab-presentations/{code}/followers/{guess}")
        assert status == 404, (guess, raw)
    # A wrong code's page shows no lab, nobody's
    for guess in near[:4] + [secrets.token_hex(16)]:
        status, _, raw = call(server, "GET", f"/lab?follow={guess}", headers={"Accept": "text/html"})
        assert status == 404 and b"No such presentation" in raw and b"lab.js" not in raw, (guess, status)
    # The real code still works, and a normal client is served
    status, _, raw = call(server, "GET", f"/lab?follow={code}", headers={"Accept": "text/html"})
    assert status == 200 and b"lab.js" in raw
    support.assert_normal_client_served(server.host, server.port, when="after the guesses")
    for stream in streams:
        stream.close()


def test_a_follow_code_cannot_end_drive_report_for_or_restart_the_presenters_lab(start_server):
    server = start_server("lab-follow-code", env={"CLASSIC_PHOTOS_VIEWER_CONNECT_TIMEOUT": "600",
                                                  "CLASSIC_PHOTOS_FOLLOWERS_PER_PRESENTATION": "3", "CLASSIC_PHOTOS_LABS_PER_CLIENT": "4"})
    lab, code, streams = presented_lab(server)
    lab_id, drivers = lab["lab"], [lane.get("viewer") for lane in lab["lanes"] if lane.get("viewer")]
    status, _, raw = call(server, "POST", f"/api/lab-presentations/{code}/followers")
    assert status == 201, raw
    view = as_json(raw)
    key, watchers = view["follower"], [lane.get("viewer") for lane in view["lab"]["lanes"] if lane.get("viewer")]
    assert len(watchers) == 2 and not set(watchers) & set(drivers)

    # Every secret a follower holds, in every place that ends, drives or restarts a lab: 404, like a code that names nothing
    attempts = []
    for secret in [code, key] + watchers:
        attempts += [("DELETE", f"/api/labs/{secret}", None), ("GET", f"/api/labs/{secret}", None),
                     ("DELETE", f"/api/labs/{secret}/presentation", None), ("POST", f"/api/labs/{secret}/presentation", None),
                     ("DELETE", f"/api/presentations/{secret}?viewer={secret}", None)]
    for watcher in watchers + [code, key]:
        attempts += [("POST", "/api/viewport", {"viewer": watcher, "scrolling": False, "first": 8, "last": 11}),
                     ("POST", "/api/viewport", {"viewer": watcher, "scrolling": True}),
                     ("POST", "/api/viewport", {"viewer": watcher, "hidden": True}),
                     ("POST", "/api/viewport", {"viewer": watcher, "scrolling": False, "first": 0, "last": 1, "strategy": "eager"})]
    # A lab of the follower's own cannot take the presentation over, by the code or the key
    status, _, raw = call(server, "POST", "/api/labs", {"lanes": [{"strategy": "visible"}], "photos": 12})
    assert status == 201, raw
    own = as_json(raw)["lab"]
    attempts += [("POST", f"/api/labs/{own}/presentation", {"after": secret}) for secret in (code, key, *watchers)]
    for method, path, body in attempts:
        status, _, raw = call(server, method, path, body)
        assert status == 404 and "error" in as_json(raw), (method, path, body, status, raw)
    # Nor start the list cold: a watcher is a lab lane's viewer (409), the code and the key no viewer (404)
    for secret in [code, key] + watchers:
        status, _, raw = call(server, "POST", f"/api/presentations/{code}/cold-starts", {"viewer": secret})
        assert status in (404, 409) and "error" in as_json(raw), (secret, status, raw)

    # Then the presenter's lab runs on, its presentation too, and only the presenter's stop is timed
    for driver in drivers:  # the page reports to every lane's viewer
        status, _, raw = call(server, "POST", "/api/viewport", {"viewer": driver, "scrolling": False, "first": 0, "last": 3})
        assert status == 204, raw
    status, _, raw = call(server, "GET", f"/api/labs/{lab_id}")
    assert status == 200, raw
    assert [(stop["first"], stop["last"]) for stop in as_json(raw)["lanes"][1]["stops"]] == [(0, 3)]
    status, _, raw = call(server, "GET", f"/api/lab-presentations/{code}/followers/{key}")
    assert status == 200 and as_json(raw)["first"] == 0, raw

    # And past --followers-per-presentation (3) a follower is refused with the reason
    for _ in range(2):
        assert call(server, "POST", f"/api/lab-presentations/{code}/followers")[0] == 201
    status, head, raw = call(server, "POST", f"/api/lab-presentations/{code}/followers")
    assert status == 429 and "followers-per-presentation" in as_json(raw)["error"] and head.get("retry-after"), (status, raw)
    support.assert_normal_client_served(server.host, server.port, when="after the follow code's attempts")
    for stream in streams:
        stream.close()
