#!/bin/sh
# The edge's certificate (run by the nginx image's entrypoint, from /docker-entrypoint.d, before
# nginx starts): when /etc/nginx/tls holds no cert.pem and key.pem, a self-signed pair for
# localhost is made there (kept in the `edge-tls` volume, so once). To serve a real certificate,
# mount a folder with cert.pem (the full chain) and key.pem over /etc/nginx/tls; this script then
# does nothing. The stock alpine image has no openssl command: it is added on the first start.
set -eu
dir=/etc/nginx/tls
if [ -s "$dir/cert.pem" ] && [ -s "$dir/key.pem" ]; then
    exit 0
fi
command -v openssl >/dev/null 2>&1 || apk add --no-cache openssl >/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 365 \
    -subj "/CN=ClassicPhotos Live edge (self-signed)" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" \
    -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
echo "tls-cert.sh: made a self-signed certificate in $dir (mount a real one there to replace it)"
