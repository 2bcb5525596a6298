"""Attack 5: path traversal on `/static/` (and the versioned `/static/v/<hash>/`): every way out of
the public folder answers 404 and never a byte of the file it points at.

The server serves a copy of `Public/` that holds two symlinks to files outside it, next to a
secret file one level up; the secret's text is a marker looked for in every answer."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import support
from support import REPO

MARKER = b"HOSTILE-SECRET-7f3a9c"

TARGETS = [
    "/static/../secret.txt",
    "/static/../../../../../../etc/passwd",
    "/static/..%2fsecret.txt",
    "/static/..%2Fsecret.txt",
    "/static/%2e%2e/secret.txt",
    "/static/%2e%2e%2fsecret.txt",
    "/static/%2E%2E%2Fsecret.txt",
    "/static/.%2e/secret.txt",
    "/static/%252e%252e%252fsecret.txt",
    "/static/%252e%252e/secret.txt",
    "/static/..%252fsecret.txt",
    "/static/%c0%ae%c0%ae/secret.txt",  # overlong UTF-8 for "..": not valid UTF-8 (400 allowed)
    "/static//etc/passwd",
    "/static/%2fetc%2fpasswd",
    "/static/%2Fetc%2Fpasswd",
    "/static/..\\secret.txt",
    "/static/..%5csecret.txt",
    "/static/..%5Csecret.txt",
    "/static/%5c..%5csecret.txt",
    "/static/....//secret.txt",
    "/static/./../secret.txt",
    "/static/PUBLICDIR/../secret.txt",
    "/static/%00../secret.txt",  # a NUL byte: a malformed path (400 allowed)
    "/static/secret.txt%00.css",
    "/static/leak.txt",
    "/static/passwd.css",
    "/static/v/anything/..%2f..%2fsecret.txt",
    "/static/v/anything/../../secret.txt",
    "/static/v/anything/../../../secret.txt",
    "/static/v/anything/%2e%2e%2f%2e%2e%2fsecret.txt",
    "/static/v/anything/%252e%252e%252f%252e%252e%252fsecret.txt",
    "/static/v/anything/..%5c..%5csecret.txt",
    "/static/v/anything//etc/passwd",
    "/static/v/anything/%2fetc%2fpasswd",
    "/static/v/anything/leak.txt",
    "/static/v/anything/passwd.css",
    "/static/v/../../secret.txt",
    "/static/v/..%2f..%2fsecret.txt",
]


@pytest.fixture(scope="module")
def public_copy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("traversal")
    (root / "secret.txt").write_bytes(MARKER + b"\n")
    public = root / "public"
    shutil.copytree(REPO / "Public", public)
    (public / "leak.txt").symlink_to("../secret.txt")
    (public / "passwd.css").symlink_to("/etc/passwd")
    return public


@pytest.fixture(scope="module")
def server(server_factory, public_copy):
    server = server_factory.start("traversal", flags=["--public-dir", str(public_copy)])
    yield server
    server.stop()


def get(server, target: str) -> support.Exchange:
    request = f"GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode("latin-1")
    return support.raw_exchange(server.host, server.port, request, timeout=10)


def test_public_copy_is_served(server):
    """The control: the copied folder's own files are served."""
    exchange = get(server, "/static/app.css")
    assert [r.status for r in exchange.responses] == [200], exchange.describe()


@pytest.mark.parametrize("target", TARGETS)
def test_traversal_is_not_found(server, public_copy, target):
    target = target.replace("PUBLICDIR", public_copy.name)
    exchange = get(server, target)
    assert MARKER not in exchange.data, f"GET {target} served the secret file outside the public folder"
    assert b"root:x:0:0" not in exchange.data, f"GET {target} served /etc/passwd"
    statuses = [r.status for r in exchange.responses]
    # A path that is not even well-formed (a NUL byte, invalid UTF-8) may be refused as a bad
    # request; every other way out of the folder is simply not found.
    allowed = [[404], [400]] if "%00" in target or "%c0" in target else [[404]]
    assert statuses in allowed, f"GET {target}: " + exchange.describe()
    server.assert_alive()
