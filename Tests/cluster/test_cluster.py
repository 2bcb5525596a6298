"""Several instances on one PostgreSQL: each photo downloaded once across all of them, events and
results shared, work taken over when its instance dies, recovery when PostgreSQL restarts, and
demand that spans instances. Everything real, on loopback; gates instead of sleeps."""
from __future__ import annotations

import hashlib
import json

from support import wait_until

RANK = {"new": 0, "downloading": 1, "downloaded": 2, "filtering": 3, "filtered": 4}


def names(origin) -> list[str]:
    """The origin's photos in list order (the data source is sorted by name)."""
    return sorted(origin.photos)


def held_on_a_and_awaited_on_b(a, b, origin, viewers, index: int):
    """Row `index` shown on a, whose transfer the origin holds, then on b, which waits for a's work:
    (the photo's name, the gate that lets the transfer go on, a's viewer, b's viewer)."""
    name = names(origin)[index]
    gate = origin.hold(name)
    on_a = viewers(a)
    on_a.show(index, index)
    assert origin.started[name].wait(60)
    on_b = viewers(b)
    on_b.show(index, index)
    wait_until(lambda: b.health().get("waitingFor", 0) >= 1, "b to wait for a's transfer")
    return name, gate, on_a, on_b


def test_one_get_per_photo_across_three_instances_and_the_same_bytes_everywhere(cluster, origin, viewers):
    rows = range(len(origin.photos))
    watching = [viewers(instance) for instance in cluster]
    for viewer in watching:
        viewer.show(rows[0], rows[-1])
    for viewer in watching:
        viewer.wait_for(rows)

    assert {name: origin.count(name) for name in names(origin)} == {name: 1 for name in names(origin)}
    for index in rows:
        answers = [instance.request("GET", f"/photos/{index}/thumbnail") for instance in cluster]
        assert [status for status, _, _ in answers] == [200, 200, 200]
        assert len({hashlib.sha256(body).hexdigest() for _, _, body in answers}) == 1, f"row {index}: different bytes"
        assert len({headers["ETag"] for _, headers, _ in answers}) == 1, f"row {index}: different ETags"


def test_a_viewer_on_c_sees_progress_and_filtered_in_order_for_work_on_a(cluster, origin, viewers):
    a, _, c = cluster
    held = names(origin)[:3]
    gates = [origin.hold(name) for name in held]
    on_c = viewers(c)
    on_a = viewers(a)
    on_a.show(0, 2)
    for name in held:
        assert origin.started[name].wait(60), f"{name} never requested"
    on_c.show(0, 2)
    wait_until(lambda: c.health().get("waitingFor", 0) >= 3, "c to wait for a's work", describe=lambda: (c.health(), a.health()))
    # The progress a made so far reaches c's viewer while a's transfers are held.
    on_c.wait_for(range(3), "downloading", ever=True)
    for gate in gates:
        gate.set()
    on_c.wait_for(range(3))

    for index in range(3):
        history = on_c.history(index)
        states = [event["state"] for event in history]
        assert "downloading" in states, f"row {index}: no progress seen on c: {states}"
        assert [RANK[s] for s in states] == sorted(RANK[s] for s in states), f"row {index}: out of order on c: {states}"
        progress = [event["progress"] for event in history if event["state"] == "downloading" and event.get("progress") is not None]
        assert progress == sorted(progress), f"row {index}: progress went back: {progress}"
        # Filtered is told only once the thumbnail can be served.
        status, _, _ = c.request("GET", f"/photos/{index}/thumbnail")
        assert status == 200
    assert [origin.count(name) for name in held] == [1, 1, 1]


def test_killing_the_instance_mid_transfer_hands_the_photo_to_another(cluster, origin, viewers):
    a, b, _ = cluster
    name, _, _, on_b = held_on_a_and_awaited_on_b(a, b, origin, viewers, 4)

    a.kill()
    on_b.wait_for([4])

    assert origin.count(name) == 2, "b fetched the photo exactly once more"
    status, _, original = b.request("GET", "/photos/4/original")
    assert status == 200 and original == origin.photos[name], "the original served is the whole file"
    status, headers, thumbnail = b.request("GET", "/photos/4/thumbnail")
    assert status == 200 and thumbnail[:2] == b"\xff\xd8" and thumbnail.endswith(b"\xff\xd9")


def test_restarting_postgres_mid_run_every_instance_recovers(cluster, origin, postgres, viewers):
    held = names(origin)[:2]
    gates = [origin.hold(name) for name in held]
    watching = [viewers(instance) for instance in cluster]
    for viewer in watching:
        viewer.show(0, 1)
    for name in held:
        assert origin.started[name].wait(60)

    postgres.stop()
    wait_until(lambda: all(instance.health().get("database") == "lost" for instance in cluster), "every instance to see the loss")
    assert all(instance.health().get("status") == "ready" for instance in cluster), "instances keep serving"
    # The page hears it with the totals (its banner says so), and every later tick's totals say it
    # too: the page replaces its totals whole, so one without the field took the banner away.
    assert json.loads(cluster[0].request("GET", "/api/stats")[2])["database"] == "lost"
    first = watching[0]
    lost = first.wait_for_stats(lambda stats: stats.get("database") == "lost", "the database lost")
    viewers(cluster[0])
    ticked = first.wait_for_stats(lambda stats: stats["viewers"] > lost["viewers"], "one more viewer")
    assert ticked.get("database") == "lost", "the tick after the loss keeps the banner"
    postgres.start()
    wait_until(lambda: all(instance.health().get("database") == "connected" for instance in cluster), "every instance to reconnect")
    assert json.loads(cluster[0].request("GET", "/api/stats")[2])["database"] == "connected"
    first.wait_for_stats(lambda stats: stats.get("database") == "connected", "the database connected again")
    for gate in gates:
        gate.set()
    for viewer in watching:
        viewer.wait_for([0, 1])

    # New work after the restart is shared as before: once per photo.
    for viewer in watching:
        viewer.show(6, 9)
    for viewer in watching:
        viewer.wait_for(range(6, 10))
    assert [origin.count(name) for name in names(origin)[6:10]] == [1, 1, 1, 1]
    wait_until(lambda: postgres.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 16001") == "0",
               "no claim left once all work is done")


def test_work_goes_on_when_one_viewer_scrolls_away_while_another_instance_wants_it(cluster, origin, viewers):
    a, b, _ = cluster
    name, gate, on_a, on_b = held_on_a_and_awaited_on_b(a, b, origin, viewers, 5)

    on_a.show(9, 9)
    on_a.wait_for([9])
    gate.set()
    on_b.wait_for([5])
    on_a.wait_for([5])

    assert origin.count(name) == 1, "the transfer went on: no second GET"
    status, _, stats = a.request("GET", "/api/stats")
    assert status == 200


def test_the_edge_keeps_a_viewer_on_its_instance_and_moves_it_when_the_instance_goes(cluster, edge):
    # Given a page loaded through the edge: its instance names itself in the cookie
    status, headers, _ = edge.request("GET", "/")
    assert status == 200
    home = edge.sticky(headers)
    assert home in {"a", "b", "c"}
    # Then every request carrying the cookie reaches that instance
    for _ in range(6):
        assert json.loads(edge.request("GET", "/healthz", home)[2])["instance"] == home

    # When that instance goes away
    next(instance for instance in cluster if instance.name == home).kill()

    # Then the page's request for a new viewer reaches another instance, whose cookie it gets
    status, headers, body = edge.request("POST", "/api/viewers", home, {})
    assert status == 201, body
    moved = edge.sticky(headers)
    assert moved in {"a", "b", "c"} - {home}
    viewer = json.loads(body)["viewer"]
    # And its viewport reports reach the instance that knows the viewer
    for _ in range(4):
        status, _, body = edge.request("POST", "/api/viewport", moved, {"viewer": viewer, "scrolling": False, "first": 0, "last": 2})
        assert status == 204, body
