"""A room behind one address (issue 57, item 4): a presenter and ROOM people's browsers behind one NAT,
with the shipped defaults of `--shared-streams-per-client` (8), `--connections-per-client` (64) and
`--viewers-per-minute` (60). Each browser is a Chromium browser context of its own (its own
SharedWorker, so its own `GET /events/shared` stream, and its own connections), all in one Chromium
process to keep the test cheap. Before, the ninth browser's shared stream was refused: its page said
"The server cannot be reached" and never moved with the presenter. Now every follower is carried: the
presenter counts them all, and each list follows the presenter's jump."""
from __future__ import annotations

import json
import urllib.request

import websocket

import gestures
from test_page import Page, wait_for

ROOM = 20
STATE = "return classicPhotos.presentation"
SHIPPED = {"CLASSIC_PHOTOS_SHARED_STREAMS_PER_CLIENT": "8", "CLASSIC_PHOTOS_CONNECTIONS_PER_CLIENT": "64",
           "CLASSIC_PHOTOS_VIEWERS_PER_MINUTE": "60", "CLASSIC_PHOTOS_VIEWERS_PER_CLIENT": "1250"}


class Browser:
    """The test Chromium's own DevTools connection: opens pages in new browser contexts (each a browser
    of its own: its storage, SharedWorkers and connections), which chromedriver then drives as windows."""

    def __init__(self, driver):
        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json/version") as answer:
            url = json.load(answer)["webSocketDebuggerUrl"]
        self.socket = websocket.create_connection(url, suppress_origin=True, timeout=30)
        self.calls = 0

    def call(self, method: str, **params) -> dict:
        self.calls += 1
        self.socket.send(json.dumps({"id": self.calls, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.calls:
                assert "error" not in message, message
                return message["result"]

    def open_in_own_context(self, url: str) -> str:
        """Opens `url` in a new browser context's window; its window handle (the target's id)."""
        context = self.call("Target.createBrowserContext")["browserContextId"]
        return self.call("Target.createTarget", url=url, browserContextId=context, newWindow=True)["targetId"]

    def close(self):
        self.socket.close()


def test_a_room_of_browsers_behind_one_address_all_follow_with_the_shipped_defaults(start_server, make_driver):
    server = start_server("room-browsers", photo_count=200, latency_ms=20, bandwidth=50_000_000, env=SHIPPED)
    driver = make_driver()
    presenter = Page(driver, server).open("/?present")
    wait_for(driver, lambda d: d.execute_script(STATE)["link"], 30, "presenting never started")
    link = presenter.js(STATE)["link"]
    presenter_window = driver.current_window_handle

    # When ROOM browsers behind the same address open the follow link, one after another
    # Then every one follows, its stream carried (its list comes on it), and the presenter counts them all
    browser = Browser(driver)
    followers = []
    try:
        for number in range(ROOM):
            followers.append(browser.open_in_own_context(link))
            driver.switch_to.window(followers[-1])
            wait_for(driver, lambda d: d.execute_script(
                "return !!(window.classicPhotos && classicPhotos.count > 0 && classicPhotos.presentation.role === 'follower')"), 60,
                f"follower {number + 1} of {ROOM} never opened a following page: "
                + driver.execute_script("return document.body ? document.body.innerText.slice(0, 300) : ''"))
    finally:
        browser.close()
    driver.switch_to.window(presenter_window)
    wait_for(driver, lambda d: d.execute_script(STATE)["followers"] == ROOM, 60,
             f"the presenter never counted {ROOM} followers (it says {presenter.js(STATE)['followers']})")

    # When the presenter jumps half-way down the list
    before = presenter.visible_range()[0]
    gestures.track_click(driver, "#list", 0.5)
    wait_for(driver, lambda d: d.execute_script("return classicPhotos.visibleRange().first") != before, 30,
             "the jump never moved the presenter's list")
    presenter.wait_reported()
    first = presenter.visible_range()[0]
    assert first > 50

    # Then every follower's list has the presenter's rows at its top, and none says the server is unreachable
    for number, window in enumerate(followers):
        driver.switch_to.window(window)
        wait_for(driver, lambda d: d.execute_script("return classicPhotos.visibleRange().first") == first, 30,
                 f"follower {number + 1} of {ROOM} never moved to the presenter's row {first}")
        assert driver.execute_script(STATE)["following"] is True
        text = driver.execute_script("return document.body.innerText")
        assert "cannot be reached" not in text, f"follower {number + 1}: {text[:500]}"
        assert "Following the presenter" in text, f"follower {number + 1}: {text[:500]}"
