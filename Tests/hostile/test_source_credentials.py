"""The operator's credentials are never shown (issue 41, item 6): a `--source` URL, or a photo's URL,
that carries `user:password@` is echoed with its userinfo hidden in every text a visitor can read:
`/healthz`, `/api/photos`, a viewer's `source` event, a failed row's reason and detail; and in the
server's own log (which an operator may share, or a log service show to others)."""
from __future__ import annotations

import json

import support
from conftest import free_port
from trust_support import ScriptedOrigin, load_rows

PASSWORD = "PASSWORD-q7Zr"
CREDENTIALS = f"admin:{PASSWORD}@"


def with_credentials(url: str) -> str:
    return url.replace("http://", f"http://{CREDENTIALS}", 1)


def shown_to_a_visitor(server) -> dict[str, str]:
    """What a visitor reads: `/healthz`, `/api/photos` and a new viewer's first `source` event."""
    texts = {}
    for path in ("/healthz", "/api/photos"):
        _, _, body = support.http_request(server.host, server.port, "GET", path)
        texts[path] = body.decode(errors="replace")
    status, _, body = support.http_request(server.host, server.port, "POST", "/api/viewers")
    assert status == 201, body
    stream = support.EventStream(server.host, server.port, json.loads(body)["viewer"], timeout=30)
    try:
        while True:
            event = stream.next_event()
            assert event is not None, "the stream ended before its source event"
            if event[0] == "source":
                texts["event: source"] = event[1]
                return texts
    finally:
        stream.close()


def assert_log_hides_the_password(server, shown: str):
    """The server's log names the source with its userinfo hidden (`shown` is in it), never the password."""
    log = server.stdout_path.read_text(errors="replace") + server.stderr_path.read_text(errors="replace")
    assert PASSWORD not in log, [line for line in log.splitlines() if PASSWORD in line]
    assert shown in log, log[-2000:]


def list_failed(server) -> bool:
    try:
        status, _, body = support.http_request(server.host, server.port, "GET", "/healthz")
    except OSError:
        return False  # not listening yet
    return status == 503 and b'"failed"' in body


def test_a_source_that_fails_never_shows_its_password(server_factory):
    # Given a data source whose URL carries a user name and password, and whose list is not there
    origin = ScriptedOrigin()
    try:
        server = server_factory.start("credentials-list", wait=False,
                                      flags=["--source", with_credentials(origin.url("/photos.json"))])
        # When the list fails to load
        assert support.wait_until(lambda: list_failed(server), 120), server.describe()
        # Then every text a visitor reads says why, with the URL's userinfo hidden
        texts = shown_to_a_visitor(server)
        for where, text in texts.items():
            assert PASSWORD not in text and "admin:" not in text, (where, text)
            assert f"http://***@127.0.0.1:{origin.port}/photos.json" in text, (where, text)
        assert origin.requests("/photos.json") == 1
        assert_log_hides_the_password(server, f"http://***@127.0.0.1:{origin.port}/photos.json")
    finally:
        origin.close()


def test_a_failed_row_never_shows_the_password_of_its_url(server_factory):
    # Given a list whose photo URLs carry credentials, one of them to a loopback port nobody named
    origin = ScriptedOrigin()
    refused = with_credentials(f"http://127.0.0.1:{free_port()}/secret.jpg")
    origin.routes["/photos.json"] = (200, {"Content-Type": "application/json"}, json.dumps({
        "A refused": refused, "B missing": with_credentials(origin.url("/missing.jpg"))}).encode())
    try:
        server = server_factory.start("credentials-rows",
                                      flags=["--source", with_credentials(origin.url("/photos.json")),
                                             "--strategy", "visible"])
        # When a viewer has both rows on screen and both fail
        rows = load_rows(server.host, server.port, 0, 1)
        assert [rows[0]["state"], rows[1]["state"]] == ["failed", "failed"], rows
        assert "not an allowed source" in rows[0]["reason"], rows[0]
        # Then neither the rows' events nor the list, the health or the source event show the password
        texts = dict(shown_to_a_visitor(server), rows=json.dumps(rows))
        for where, text in texts.items():
            assert PASSWORD not in text and "admin:" not in text, (where, text)
        assert "http://***@127.0.0.1" in texts["/api/photos"], texts["/api/photos"]
        # And the log's "data source loaded" line names the source without it
        assert_log_hides_the_password(server, f"source=http://***@127.0.0.1:{origin.port}/photos.json")
    finally:
        origin.close()

