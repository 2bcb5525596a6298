#!/usr/bin/env bash
# Runs every test: the Swift suites (real HTTP on loopback, real codecs), the container and edge
# checks (compose schema, hadolint, nginx in front of the app on loopback), then the browser and
# operations tests (headless Chromium and pytest against a real `classic-photos serve`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
swift build --build-tests
swift test --skip-build
scripts/check-containers.sh
python3 -m pytest -p no:benchmark -p no:cacheprovider Tests/browser
