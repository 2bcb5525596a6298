#!/usr/bin/env bash
# Makes a self-signed certificate for serving HTTPS locally: DIR/cert.pem and DIR/key.pem
# (DIR defaults to .build/tls), for localhost, 127.0.0.1 and ::1, valid 30 days. One still valid
# for another day is kept. Browsers warn about it (no CA they trust signed it): for a real
# certificate see README "HTTPS".
set -euo pipefail
dir="${1:-$(dirname "$0")/../.build/tls}"
mkdir -p "$dir"
if [ -f "$dir/cert.pem" ] && [ -f "$dir/key.pem" ] && openssl x509 -checkend 86400 -noout -in "$dir/cert.pem" >/dev/null 2>&1; then
    exit 0
fi
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -subj "/CN=ClassicPhotos Live (local)" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" \
    -keyout "$dir/key.pem.new" -out "$dir/cert.pem.new" 2>/dev/null
chmod 600 "$dir/key.pem.new"
# The key first: a server reloading in between never pairs the new certificate with the old key.
mv "$dir/key.pem.new" "$dir/key.pem"
mv "$dir/cert.pem.new" "$dir/cert.pem"
