"""Amplification: requests that are cheap to send and dear to answer. Many requests at once for one
photo's full-size sepia image cost one render (single flight), and retrying a failed photo again
and again is refused with a reason and when to try again, instead of fetching it from the origin
each time. A normal client is served during and after."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

import support

REQUESTS = 32


@pytest.fixture(scope="module")
def server(server_factory):
    # The mis-named sample photo (the 21st) fails every time; one retry a minute per client, so that
    # what is refused does not depend on how fast the machine is
    server = server_factory.start("amplification", env={"CLASSIC_PHOTOS_RETRIES_PER_MINUTE": "1"})
    yield server
    server.stop()


def filtered_rows(server, first: int, last: int) -> dict[int, str]:
    """Reports rows first...last for a viewer and waits until each is sepia or failed; their states."""
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
    assert status == 201, body
    viewer = json.loads(body)["viewer"]
    stream = support.EventStream(server.host, server.port, viewer, timeout=60)
    states: dict[int, str] = {}
    try:
        report = {"viewer": viewer, "scrolling": False, "first": first, "last": last}
        assert support.http_request(server.host, server.port, "POST", "/api/viewport", json.dumps(report).encode(),
                                    {"Content-Type": "application/json"})[0] == 204
        while not all(states.get(row) in ("filtered", "failed") for row in range(first, last + 1)):
            event = stream.next_event()
            assert event is not None, "the stream ended"
            name, data = event
            photos = json.loads(data).get("photos", []) if name == "snapshot" else [json.loads(data)] if name == "photo" else []
            for photo in photos:
                states[photo["index"]] = photo["state"]
    finally:
        stream.close()
    return states


def test_many_requests_for_one_full_size_image_cost_one_render(server):
    # Given two photos downloaded and filtered
    states = filtered_rows(server, 0, 3)
    done = [row for row, state in states.items() if state == "filtered"][:2]
    assert len(done) == 2, states
    one, many = done

    # When one request renders one photo's full-size sepia image, and 32 at once ask for the other's
    before = server.cpu_seconds()
    status, _, single = support.http_request(server.host, server.port, "GET", f"/photos/{one}/sepia", timeout=60)
    assert status == 200
    cpu_one = server.cpu_seconds() - before

    before = server.cpu_seconds()
    with ThreadPoolExecutor(REQUESTS) as pool:
        answers = list(pool.map(
            lambda _: support.http_request(server.host, server.port, "GET", f"/photos/{many}/sepia", timeout=120),
            range(REQUESTS)))
    cpu_many = server.cpu_seconds() - before

    # Then every one of them gets the same image, for about the CPU of one render, not of 32
    assert all(status == 200 for status, _, _ in answers), [status for status, _, _ in answers]
    assert len({body for _, _, body in answers}) == 1
    print(f"full-size sepia: one request {cpu_one:.3f} s CPU, {REQUESTS} at once {cpu_many:.3f} s CPU")
    assert cpu_many < 4 * max(cpu_one, 0.02), f"{REQUESTS} requests cost {cpu_many:.2f} s of CPU, one cost {cpu_one:.2f} s"
    support.assert_normal_client_served(server.host, server.port, when="after the full-size requests")


def test_retrying_a_photo_that_fails_again_and_again_is_refused_not_fetched(server):
    # Given the photo that fails every time (the sample's mis-named one), failed, and retried once
    states = filtered_rows(server, 0, server.photo_count - 1)
    failed = next(row for row, state in states.items() if state == "failed")
    assert support.http_request(server.host, server.port, "POST", f"/api/photos/{failed}/retry")[0] == 202
    assert filtered_rows(server, failed, failed)[failed] == "failed"

    # When it is retried over and over at once
    answers = [support.http_request(server.host, server.port, "POST", f"/api/photos/{failed}/retry") for _ in range(50)]

    # Then each is refused with a reason and when to try again: the origin is not asked again
    assert [status for status, _, _ in answers] == [429] * 50
    assert all(int(headers["retry-after"]) >= 1 and json.loads(body)["error"] for _, headers, body in answers)
    server.assert_alive()
    support.assert_normal_client_served(server.host, server.port, when="after the retries")
