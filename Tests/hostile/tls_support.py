"""Certificates for the HTTPS tests, made with `openssl` in a folder of the test's own: a test CA
and leaf certificates it signs (for 127.0.0.1, ::1 and localhost), valid or expired, and TLS
contexts for clients that trust that CA (or nothing)."""
from __future__ import annotations

import socket
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path

SUBJECT_NAMES = "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1"


def openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"openssl {' '.join(args)} failed: {done.stderr}"


@dataclass
class Leaf:
    cert: Path
    key: Path
    name: str


class CertificateAuthority:
    """A CA made for one test session; `leaf()` signs certificates for the loopback addresses."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.cert = folder / "ca.pem"
        self.key = folder / "ca.key"
        self.issued = 0
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", str(self.key), "-out", str(self.cert), "-days", "2", "-subj", "/CN=ClassicPhotos test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign", cwd=folder)

    def leaf(self, name: str, expired: bool = False) -> Leaf:
        """A certificate with CN `name` for the loopback addresses; `expired` ended yesterday."""
        self.issued += 1
        stem = f"{name}-{self.issued}"
        key, csr, cert = (self.folder / f"{stem}.{ext}" for ext in ("key", "csr", "pem"))
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key),
                "-out", str(csr), "-subj", f"/CN={name}", cwd=self.folder)
        extensions = self.folder / f"{stem}.ext"
        extensions.write_text(SUBJECT_NAMES + "\nextendedKeyUsage=serverAuth\n")
        # `openssl x509 -not_before/-not_after` needs 3.4; the `ca` command's dates work everywhere.
        dates = ["-days", "1"]
        if expired:
            dates = ["-startdate", "20200101000000Z", "-enddate", "20200102000000Z"]
        database = self.folder / "index.txt"
        database.write_text("")
        (self.folder / "serial").write_text("%032x\n" % self.issued)
        config = self.folder / "ca.cnf"
        config.write_text(
            "[ca]\ndefault_ca=test\n[test]\n"
            f"database={database}\nserial={self.folder / 'serial'}\nnew_certs_dir={self.folder}\n"
            "default_md=sha256\npolicy=any\nunique_subject=no\ncopy_extensions=none\n[any]\ncommonName=supplied\n")
        openssl("ca", "-batch", "-config", str(config), "-cert", str(self.cert), "-keyfile", str(self.key),
                "-in", str(csr), "-out", str(cert), "-extfile", str(extensions), "-notext", *dates, cwd=self.folder)
        return Leaf(cert=cert, key=key, name=name)

    def client_context(self, alpn: list[str] | None = None) -> ssl.SSLContext:
        """Verifies the server against this CA (and its name), offering `alpn`."""
        context = ssl.create_default_context(cafile=str(self.cert))
        if alpn:
            context.set_alpn_protocols(alpn)
        return context


def trusting_nothing(alpn: list[str] | None = None) -> ssl.SSLContext:
    """A client that checks nothing (what `curl -k` does), for tests about what follows the handshake."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    if alpn:
        context.set_alpn_protocols(alpn)
    return context


def tls_connect(host: str, port: int, context: ssl.SSLContext, timeout: float = 10,
                source: str | None = None) -> ssl.SSLSocket:
    """A TLS connection (handshake done); `source` binds the client's address (127.0.0.2 is another client)."""
    raw = socket.create_connection((host, port), timeout=timeout, source_address=(source, 0) if source else None)
    try:
        return context.wrap_socket(raw, server_hostname=host)
    except BaseException:
        raw.close()
        raise


def peer_common_name(sock: ssl.SSLSocket) -> str:
    """The CN of the certificate the server showed (read without verifying it)."""
    der = sock.getpeercert(binary_form=True)
    text = subprocess.run(["openssl", "x509", "-inform", "DER", "-noout", "-subject"], input=der,
                          capture_output=True).stdout.decode()
    return text.strip().rsplit("CN", 1)[-1].lstrip(" =")


def start_https(start_server, ca: CertificateAuthority, name: str, flags: list[str] | None = None, env: dict | None = None,
                leaf: Leaf | None = None):
    """A server on HTTPS only, with a certificate of `ca` (a new one unless `leaf` is given)."""
    leaf = leaf or ca.leaf(name)
    server = start_server(name, flags=["--tls-cert", str(leaf.cert), "--tls-key", str(leaf.key), *(flags or [])], env=env)
    server.leaf = leaf
    return server
