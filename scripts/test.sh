#!/usr/bin/env bash
# Runs every test: the Swift suites (real HTTP on loopback, real codecs), the container and edge
# checks (compose schema, hadolint, nginx in front of the app on loopback; then the image built from
# the Dockerfile and docker-compose.yml's default and cluster profiles run with podman), the browser
# and operations tests (headless Chromium and pytest against a real `classic-photos serve`), the
# cluster tests (three instances on a loopback PostgreSQL), the hostile-client suite and REDbot
# against the bare server, the codec fuzzer, and the docs check (scripts/docs.py check).
#
# Independent stages run side by side, in lanes, where two cores allow: most of each test waits on
# a server, a browser or a timer, not on the CPU.
#   1. install, alone (apt and pip);
#   2. the build, beside the product's container image (base images and `podman build` of the
#      Dockerfile: it needs no host build, and its apt, debootstrap and link steps leave a core free);
#   3. the browser tests, the fuzzer and the docs check; then the Swift suites, the container checks,
#      the cluster tests and the hostile clients. Not side by side: timing-bound tests of each failed
#      beside the other on two cores (and with two pytest-xdist workers a suite, more);
#   4. the hostile tests that compare a bystander's latency with and without an attack
#      (HOSTILE_ALONE), alone: another lane's load would be read as the attack's.
# A lane's lines are prefixed with its name. Prints each stage's time, then all of them; exits
# non-zero when any stage failed (a lane stops at its first failed stage; the others finish).
set -euo pipefail
cd "$(dirname "$0")/.."

# Tests that measure a bystander's latency beside an attack against the same without it, in one run.
HOSTILE_ALONE=(Tests/hostile/test_presenter_flood.py)
# --durations: each suite names its slowest tests (where the run's time goes; issue 60)
PYTEST=(python3 -m pytest -p no:benchmark -p no:cacheprovider --durations=12)

times=$(mktemp "${TMPDIR:-/tmp}/test-stage-times.XXXXXX")
started_all=$SECONDS
report() {
    echo "==> stage times (total $((SECONDS - started_all)) s)"
    sed 's/^/    /' "$times"
    rm -f "$times"
}
trap report EXIT

# stage NAME COMMAND...: runs COMMAND, prints and records its time (and whether it failed).
stage() {
    local name=$1 started=$SECONDS status=0
    shift
    echo "==> $name"
    "$@" || status=$?
    local line
    line=$(printf '%-18s %4d s' "$name" $((SECONDS - started)))
    ((status == 0)) || line+="  FAILED (exit $status)"
    echo "$line" >> "$times"
    echo "==> $line"
    return "$status"
}

# side_by_side LANE...: runs each lane (a function running stages in turn) in the background, its
# lines prefixed with its name; waits for all of them and fails when one failed.
side_by_side() {
    local pids=() failed=() lane i
    for lane in "$@"; do
        ( trap - EXIT; "$lane" ) > >(sed -u "s/^/[$lane] /") 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || failed+=("${*:i+1:1}")
    done
    wait  # the prefixing sed processes: every line is out before the next step prints
    if ((${#failed[@]})); then
        echo "==> failed in lane: ${failed[*]}"
        return 1
    fi
}

build() { stage "build" swift build --build-tests; }
image() { stage "container image" scripts/containers/run.sh images; }
# A lane chains its stages with && (set -e does not hold in a lane called as `side_by_side ... || failed=1`).
browser() {
    stage "browser tests" "${PYTEST[@]}" Tests/browser &&
    stage "fuzz (30 s)" scripts/fuzz.sh 30 &&
    stage "docs" "${PYTEST[@]}" -q Tests/docs
}
checks() {
    stage "swift tests" scripts/swift-tests.sh &&
    stage "containers" scripts/check-containers.sh --compose &&
    stage "cluster tests" "${PYTEST[@]}" Tests/cluster &&
    stage "hostile clients" "${PYTEST[@]}" Tests/hostile \
        "${HOSTILE_ALONE[@]/#/--ignore=}"
}

stage "install" scripts/install-deps.sh --tests
side_by_side build image
# The browser and the checks lanes one after the other: side by side on two cores, timing-bound tests
# of each (wheel input, a stop's cost, a stream's rejoin) failed in fresh-clone runs that pass alone.
failed=0
side_by_side browser || failed=1
side_by_side checks || failed=1
stage "hostile, alone" "${PYTEST[@]}" "${HOSTILE_ALONE[@]}" || failed=1
exit "$failed"
