#!/usr/bin/env bash
# Runs the built Swift suites (`swift test --skip-build`, arguments passed on), at most
# SWIFT_TEST_WIDTH test cases at once (default: four per core).
#
# Why a width: swift-testing starts every test at once, and every test body, and the server each
# one starts, share Swift concurrency's pool (one thread per core). Unbounded, a test's every wait
# queues behind the work of all 361 others, so on a loaded machine an event a test awaits comes
# later than the whole suite's CPU time allows (issue 41: 30-40 tests timing out together at 20 s
# beside a CPU hog and four gzip loops). Bounded, a wait queues behind a few tests' work at most.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWIFT_TEST_WIDTH:-$((4 * $(nproc)))}"
exec swift test --skip-build "$@"
