"""The bare server's TLS: the chain it serves verifies against its CA, a wrong or expired
certificate fails the client's handshake as it should, unusable files stop the start with the
reason, and a renewed certificate is taken up on SIGHUP without a restart (a broken one is not)."""
from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess

import pytest

import support
from conftest import BINARY
from h2client import H2Client
from tls_support import CertificateAuthority, peer_common_name, start_https, tls_connect, trusting_nothing

BOUND = 20


def test_valid_certificate_verifies(start_server, test_ca):
    server = start_https(start_server, test_ca, "tls-valid")
    for alpn, expected in ((["h2", "http/1.1"], "h2"), (["http/1.1"], "http/1.1"), (None, None)):
        with tls_connect(server.host, server.port, test_ca.client_context(alpn)) as sock:
            assert sock.selected_alpn_protocol() == expected
            assert sock.version() in ("TLSv1.2", "TLSv1.3")


def test_wrong_and_expired_certificates_fail_the_handshake(start_server, test_ca, tmp_path):
    other_ca = CertificateAuthority(tmp_path / "other-ca")
    server = start_https(start_server, test_ca, "tls-wrong")
    with pytest.raises(ssl.SSLCertVerificationError, match="unable to get local issuer|self.signed|unknown ca"):
        tls_connect(server.host, server.port, other_ca.client_context(["h2"]))
    raw = socket.create_connection((server.host, server.port))
    with pytest.raises(ssl.SSLCertVerificationError, match="mismatch|not valid for"):
        test_ca.client_context(["h2"]).wrap_socket(raw, server_hostname="photos.example")
    raw.close()
    expired = start_https(start_server, test_ca, "tls-expired", leaf=test_ca.leaf("tls-expired", expired=True))
    with pytest.raises(ssl.SSLCertVerificationError, match="expired"):
        tls_connect(expired.host, expired.port, test_ca.client_context(["h2"]))


def serve_until_it_exits(tmp_path, flags: list[str]) -> subprocess.CompletedProcess:
    """`classic-photos serve` with these flags, which must make it exit at start (60 s bound)."""
    command = [str(BINARY), "serve", "--port", "0", "--cache-dir", str(tmp_path / "cache"), *flags]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLASSIC_PHOTOS_")}
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL,
                          cwd=support.REPO)


@pytest.mark.parametrize("problem", ["missing", "not PEM", "key only"])
def test_unusable_files_stop_the_start_with_the_reason(test_ca, tmp_path, problem):
    leaf = test_ca.leaf("tls-unusable")
    cert, key = str(leaf.cert), str(leaf.key)
    if problem == "missing":
        cert = str(tmp_path / "nowhere.pem")
    elif problem == "not PEM":
        (tmp_path / "garbage.pem").write_text("not a certificate\n")
        cert = str(tmp_path / "garbage.pem")
    else:
        key = None
    done = serve_until_it_exits(tmp_path, ["--tls-cert", cert] + (["--tls-key", key] if key else []))
    assert done.returncode != 0
    wanted = {"missing": "TLS certificate", "not PEM": "TLS certificate", "key only": "--tls-cert needs --tls-key"}[problem]
    assert wanted in done.stderr, done.stderr[-1000:]


def test_certificate_reload_on_sighup(start_server, test_ca):
    first = test_ca.leaf("first")
    server = start_https(start_server, test_ca, "tls-reload", leaf=first)
    before = H2Client(server.host, server.port, context=test_ca.client_context(["h2"]))
    assert before.fetch("GET", "/healthz").status == 200
    assert peer_common_name(before.sock) == "first"

    second = test_ca.leaf("second")
    for source, target in ((second.cert, first.cert), (second.key, first.key)):
        staged = target.with_suffix(".staged")
        staged.write_bytes(source.read_bytes())
        staged.replace(target)  # renewed as certbot does: the new file replaces the old at once
    os.kill(server.pid, signal.SIGHUP)

    def serves(name: str) -> bool:
        with tls_connect(server.host, server.port, trusting_nothing(["h2"])) as sock:
            return peer_common_name(sock) == name

    assert support.wait_until(lambda: serves("second"), BOUND), "the renewed certificate was not taken up"
    assert before.fetch("GET", "/healthz").status == 200, "a connection from before the reload was dropped"
    before.close()

    first.cert.write_text("-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n")
    os.kill(server.pid, signal.SIGHUP)
    assert support.wait_until(lambda: "not reloaded" in server.stderr(20_000), BOUND), server.stderr()
    assert serves("second"), "a broken renewal replaced the certificate in use"
    server.assert_alive()


def test_a_key_of_another_certificate_stops_the_start(test_ca, tmp_path):
    first, second = test_ca.leaf("pair-a"), test_ca.leaf("pair-b")
    done = serve_until_it_exits(tmp_path, ["--tls-cert", str(first.cert), "--tls-key", str(second.key)])
    assert done.returncode != 0 and f"is not the key of the certificate {first.cert}" in done.stderr, done.stderr[-1000:]
