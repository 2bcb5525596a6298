#!/usr/bin/env bash
# Starts ClassicPhotos Live on its built-in sample photos at http://127.0.0.1:8080/
# (extra arguments go to `classic-photos serve`; see `--help`).
# `--tls-self-signed` serves https://127.0.0.1:8080/ (HTTP/2) with a certificate made by
# scripts/self-signed-cert.sh in .build/tls.
set -euo pipefail
cd "$(dirname "$0")/.."
arguments=()
for argument in "$@"; do
    if [ "$argument" = "--tls-self-signed" ]; then
        scripts/self-signed-cert.sh .build/tls
        arguments+=(--tls-cert .build/tls/cert.pem --tls-key .build/tls/key.pem)
    else
        arguments+=("$argument")
    fi
done
scripts/install-deps.sh
swift build -c release --product classic-photos
exec .build/release/classic-photos serve ${arguments[@]+"${arguments[@]}"}
