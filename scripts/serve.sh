#!/usr/bin/env bash
# Starts ClassicPhotos Live on its built-in sample photos at http://127.0.0.1:8080/
# (extra arguments go to `classic-photos serve`; see `--help`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product classic-photos
exec .build/release/classic-photos serve "$@"
