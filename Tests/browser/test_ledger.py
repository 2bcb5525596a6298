"""Each queue's figures are one ledger, on the server and in the page's panel: started = finished +
cancelled while running + failed + running now, with the operations cancelled before they started
counted and labelled apart. Checked after a person's wheel scroll that leaves rows while their work runs
(so both kinds of cancellation happen), at every reading: a figure computed on its own, or the old
"cancelled" that counted work which never started beside a "started" that did not, fails it."""
from __future__ import annotations

import gestures
from test_page import Page, wait_for

QUEUES = ("downloads", "filtrations")
# The panel's cells by the server's field each shows.
CELLS = {"started": "started", "finished": "finished", "cancelledRunning": "cancelled", "failed": "failed",
         "executing": "executing", "pending": "pending", "cancelledQueued": "cancelled-queued"}
PANEL = """
const read = (id) => Number(document.getElementById(id).textContent.replace(/,/g, ''));
const cells = arguments[0];
return Object.fromEntries([['downloads', 'dl'], ['filtrations', 'ft']].map(([queue, prefix]) =>
    [queue, Object.fromEntries(Object.entries(cells).map(([field, cell]) => [field, read('stat-' + prefix + '-' + cell)]))]));
"""


def unbalanced(counts: dict) -> str | None:
    """What does not add up in one queue's counts, or None."""
    ran = counts["finished"] + counts["cancelledRunning"] + counts["failed"] + counts["executing"]
    if counts["started"] != ran:
        return f"started {counts['started']} != finished + cancelled running + failed + running = {ran}: {counts}"
    if "cancelled" in counts and counts["cancelled"] != counts["cancelledRunning"] + counts["cancelledQueued"]:
        return f"cancelled {counts['cancelled']} != cancelled running + cancelled queued: {counts}"
    return None


def test_every_queues_ledger_adds_up_on_the_server_and_in_the_panel(start_server, driver):
    # Given the list on a slow origin, so a row's download is still running when the person moves on
    # (a photo takes seconds: under a loaded machine's delays between a stop and the next wheel, at
    # 400 KB/s the downloads of a stop had all ended before the next one, 1 run in 9)
    slow_server = start_server("ledger", photo_count=300, latency_ms=300, bandwidth=150_000)
    page = Page(driver, slow_server).open()
    before = slow_server.stats()
    x, y = gestures.center_of(driver, "#list")

    # When the person wheels down a few screens at a time, stopping just long enough for work to start
    for _ in range(4):
        started = slow_server.stats()["downloads"]["started"]
        gestures.wheel(driver, x, y, 8, 0.05)
        page.wait_reported()
        wait_for(driver, lambda _: slow_server.stats()["downloads"]["started"] > started, 30,
                 "no download started at the stop")
        # Then every reading of the server's totals adds up, each queue
        for queue in QUEUES:
            problem = unbalanced(slow_server.stats()[queue])
            assert problem is None, f"/api/stats {queue}: {problem}"

    # And both kinds of cancellation happened, and are counted apart: downloads cancelled while running,
    # and work cancelled before it started (a left row's sepia filter never starts; a queued download may not)
    queued = lambda stats: sum(stats[queue]["cancelledQueued"] for queue in QUEUES)  # noqa: E731

    def cancelled_both_ways(_):
        stats = slow_server.stats()
        return (stats["downloads"]["cancelledRunning"] > before["downloads"]["cancelledRunning"]
                and queued(stats) > queued(before)) and stats
    stats = wait_for(driver, cancelled_both_ways, 30, "the scroll did not cancel both running and queued work: "
                     f"{before} before, {slow_server.stats()} after")
    print(f"/api/stats after the scroll: downloads {stats['downloads']}, filtrations {stats['filtrations']}")

    # And the panel shows the same ledger: every reading of it adds up too, once it shows the cancellations
    wait_for(driver, lambda d: queued(d.execute_script(PANEL, CELLS)) > 0, 30,
             "the panel never showed the work cancelled before it started")
    for _ in range(5):
        panel = driver.execute_script(PANEL, CELLS)
        for queue in QUEUES:
            problem = unbalanced(panel[queue])
            assert problem is None, f"the panel's {queue}: {problem}"
        gestures.wheel(driver, x, y, 3, 0.05)
    # And the column apart says what it counts
    header = driver.execute_script(
        "return document.getElementById('stat-dl-cancelled-queued').closest('table').querySelector('thead').textContent")
    assert "cancelled running" in header and "cancelled queued" in header, header
    print(f"panel after the scroll: {panel}")

    # And "So far" (this page's own work) splits its cancellations as the table does, each figure the
    # server's (the page's latest queues event), with the whole cancelled count their sum
    def own_work(d):
        return d.execute_script("""
            const q = classicPhotos.queues;
            return { work: q && q.work, text: document.getElementById('page-work').textContent };
        """)

    def split_shown(d):
        shown = own_work(d)
        work = shown["work"]
        if not work or not (work["cancelledRunning"] + work["cancelledQueued"]):
            return False
        expected = (f"{work['cancelledRunning']} cancelled running, {work['cancelledQueued']} cancelled queued")
        return expected in shown["text"] and shown
    shown = wait_for(driver, split_shown, 30, "'So far' never showed this page's cancellations split as the server "
                     f"counts them: {own_work(driver)}")
    work = shown["work"]
    assert work["cancelled"] == work["cancelledRunning"] + work["cancelledQueued"], work
    assert "cancelled running" in shown["text"] and "cancelled queued" in shown["text"], shown["text"]
    print(f"So far: {shown['text']}")
