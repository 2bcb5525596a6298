#!/usr/bin/env bash
# Runs every test: the Swift suites (real HTTP on loopback, real codecs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
swift build --build-tests
swift test --skip-build
