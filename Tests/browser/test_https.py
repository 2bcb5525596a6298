"""Headless Chromium over HTTPS with HTTP/2 (a self-signed certificate from
scripts/self-signed-cert.sh, `--ignore-certificate-errors`): twenty tabs of the list and a
running lab in one browser, every tab live, all on one connection: each document and resource
says `nextHopProtocol` "h2", and the server holds one established connection from the browser."""
from __future__ import annotations

import json
import os
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from conftest import BINARY, CHROMEDRIVER, REPO, chrome_options, free_port, own_cache_dir
from detached_images import BATCHES_ASKED, THUMBNAILS_ASKED, WATCH_DETACHED_IMAGES
from server_process import read_address_line, stop_process
from test_lab import open_lab
from test_page import Page, wait_for

TABS = 20


class HTTPSServer:
    """`classic-photos serve` on HTTPS only, for this module."""

    def __init__(self, session_dir: Path):
        cert_dir = session_dir / "tls"
        subprocess.run([str(REPO / "scripts" / "self-signed-cert.sh"), str(cert_dir)], check=True)
        self.port = free_port()
        self.base_url = f"https://127.0.0.1:{self.port}"
        self.stderr_path = session_dir / "https.stderr.log"
        self._stderr = open(self.stderr_path, "wb")
        self._stdout = open(session_dir / "https.stdout.log", "wb")
        self.command = [str(BINARY), "serve", "--host", "127.0.0.1", "--port", str(self.port), "--photo-count", "60",
                        "--sample-latency-ms", "20", "--cache-dir", str(own_cache_dir(session_dir, "https")),
                        "--tls-cert", str(cert_dir / "cert.pem"), "--tls-key", str(cert_dir / "key.pem")]
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLASSIC_PHOTOS_")}
        env["CLASSIC_PHOTOS_VIEWERS_PER_MINUTE"] = "1000"
        self.process = subprocess.Popen(self.command, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=self._stderr)
        try:
            deadline = time.monotonic() + 240
            read_address_line(self.process, lambda: max(0.1, deadline - time.monotonic()), self.describe, self._stdout)
            while self.request("GET", "/healthz")[0] != 200:
                assert time.monotonic() < deadline, "the photo list never loaded; " + self.describe()
                time.sleep(0.2)  # polls /healthz until the list is loaded
        except BaseException:
            self.stop()  # a server that did not get ready is not left running
            raise

    def describe(self) -> str:
        return f"{' '.join(self.command)}; stderr: {self.stderr_path.read_text(errors='replace')[-3000:]}"

    def request(self, method: str, path: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        try:
            with urllib.request.urlopen(request, timeout=10, context=ssl._create_unverified_context()) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def stats(self) -> dict:
        return self.request("GET", "/api/stats")[1]

    def established_connections(self) -> int:
        """Established TCP connections to the server's port, read from /proc/net/tcp (the server's side)."""
        port = f":{self.port:04X} "
        count = 0
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if (fields[1] + " ").endswith(port) and fields[3] == "01":
                    count += 1
        return count

    def stop(self):
        stop_process(self.process, grace=10)
        self._stderr.close()
        self._stdout.close()


@pytest.fixture(scope="module")
def https_server(session_dir):
    server = HTTPSServer(session_dir)
    yield server
    server.stop()


@pytest.fixture
def browser():
    options = chrome_options()
    options.add_argument("--ignore-certificate-errors")
    # No speculative preconnects: a socket Chrome opens ahead of a navigation it predicts carries no
    # request, and one still open when the connections are counted made the count 2 in about one full run in four.
    options.add_experimental_option("prefs", {"net.network_prediction_options": 2})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


PROTOCOLS = "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))" \
            ".map(e => [e.name, e.nextHopProtocol])"


def test_twenty_tabs_and_a_lab_share_one_http2_connection(https_server, browser):
    tabs = []
    for number in range(TABS):
        if number:
            browser.switch_to.new_window("tab")
        page = Page(browser, https_server).open()
        first, last = page.visible_range()
        page.wait_filtered(first, last, allow_failed=True)
        tabs.append(browser.current_window_handle)
    browser.switch_to.new_window("tab")
    open_lab(browser, https_server)
    lab_tab = browser.current_window_handle
    lab_lanes = browser.find_elements(By.CSS_SELECTOR, ".lane-list")
    assert len(lab_lanes) == 2

    # Every tab is live: a viewer made now changes the server's totals, which every tab's stream brings.
    viewers = https_server.stats()["viewers"]
    assert https_server.request("POST", "/api/viewers")[0] == 201
    for handle in tabs:
        browser.switch_to.window(handle)
        wait_for(browser, lambda d: d.execute_script(
            "return classicPhotos.connection === 'open' && (classicPhotos.stats || {}).viewers >= arguments[0]",
            viewers + 1), 30, f"tab {tabs.index(handle) + 1} did not get the new total (its stream is not live)")
    for handle in tabs + [lab_tab]:
        browser.switch_to.window(handle)
        entries = browser.execute_script(PROTOCOLS)
        not_h2 = [entry for entry in entries if entry[1] != "h2"]
        assert entries and not not_h2, f"requests not over HTTP/2: {not_h2[:5]}"
    # An idle socket the browser opened and never used goes within the server's handshake and idle
    # deadlines; a second connection carrying requests (event streams never end) would stay.
    counts = []
    deadline = time.monotonic() + 20
    while True:
        counts.append(https_server.established_connections())
        if counts[-1] == 1 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert counts[-1] == 1, f"{counts[-1]} connections from one browser with {TABS} tabs and a lab (seen {counts})"


def test_over_http2_the_first_screen_comes_on_one_request_too(https_server, browser):
    """The page's first script asks for the first screen's thumbnails on one request over HTTP/1.1
    (test_first_screen_asks.py); over HTTP/2 the same request streams them on the one connection."""
    # Given rows nobody has looked at yet, opened by a shared link (`?row=`), over HTTP/2
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_DETACHED_IMAGES})
    page = Page(browser, https_server).open("/?row=41")
    first, last = page.visible_range()
    page.wait_filtered(first, last, allow_failed=True)
    seen = page.js(f"""return {{ asks: {THUMBNAILS_ASKED}, batches: {BATCHES_ASKED},
        protocol: performance.getEntriesByType('navigation')[0].nextHopProtocol }}""")
    assert seen["protocol"] == "h2", seen["protocol"]

    # Then the rows on screen came on the first script's one request, asked for before the list came
    # (a row just below it, prefetched, may be asked for on its own once the list comes)
    print(f"rows {first}-{last}: batches {[(b['first'], b['last']) for b in seen['batches']]}")
    early = seen["batches"][0]
    assert first <= early["last"] and early["first"] <= last, (early, first, last)
    own = [a["url"] for a in seen["asks"] if early["first"] <= int(a["url"].rsplit("/", 2)[-2]) <= early["last"]]
    assert own == [], own
