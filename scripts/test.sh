#!/usr/bin/env bash
# Runs every test: the Swift suites (real HTTP on loopback, real codecs), the container and edge
# checks (compose schema, hadolint, nginx in front of the app on loopback; then the image built from
# the Dockerfile and docker-compose.yml's default and cluster profiles run with podman), then the browser and
# operations tests (headless Chromium and pytest against a real `classic-photos serve`), the cluster
# tests (three instances on a loopback PostgreSQL), then the hostile-client suite and REDbot against
# the bare server, then the docs check (scripts/docs.py check: the README's and docs/' limits, the
# contract page against Public/openapi.json, the architecture picture against its source).
# Prints each stage's time, then all of them.
set -euo pipefail
cd "$(dirname "$0")/.."

timings=()
stage() {
    local name="$1"
    shift
    local started=$SECONDS
    echo "==> $name"
    "$@"
    timings+=("$(printf '%-18s %4d s' "$name" $((SECONDS - started)))")
    echo "==> $name: $((SECONDS - started)) s"
}
report() {
    echo "==> stage times"
    printf '    %s\n' "${timings[@]}"
}
trap report EXIT

stage "install" scripts/install-deps.sh --tests
stage "build" swift build --build-tests
stage "swift tests" scripts/swift-tests.sh
stage "containers" scripts/check-containers.sh --run
stage "browser tests" python3 -m pytest -p no:benchmark -p no:cacheprovider Tests/browser
stage "cluster tests" python3 -m pytest -p no:benchmark -p no:cacheprovider Tests/cluster
stage "hostile clients" python3 -m pytest -p no:benchmark -p no:cacheprovider Tests/hostile
stage "fuzz (30 s)" scripts/fuzz.sh 30
stage "docs" python3 -m pytest -p no:benchmark -p no:cacheprovider -q Tests/docs
