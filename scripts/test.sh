#!/usr/bin/env bash
# Runs every test: the Swift suites (real HTTP on loopback, real codecs), then the browser tests
# (headless Chromium against a real `classic-photos serve`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
swift build --build-tests
swift test --skip-build
python3 -m pytest -p no:benchmark -p no:cacheprovider Tests/browser
