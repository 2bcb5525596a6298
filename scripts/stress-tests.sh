#!/usr/bin/env bash
# Runs the Swift suites N times (default 10) while a CPU hog keeps every core busy, to find tests
# that depend on timing. Prints one closing line: "N passed, M failed", then the failing tests.
#   scripts/stress-tests.sh [N] [--filter REGEX] [--load L] [--quiet] [--fresh-samples]
# --quiet runs without the hog (the quiet machine's runs); SWIFT_TEST_WIDTH sets how many tests run
# at once (scripts/swift-tests.sh). Issue 63's tally: 10 --quiet, 10 with the hog, 10 with the hog
# and SWIFT_TEST_WIDTH=64. --fresh-samples deletes the suites' shared sample photos before each run,
# as a fresh machine has none: the suites' servers then make them together.
# --load L adds a second CPU load beside the hog: L more processes that compress random bytes
# (gzip -1 of /dev/urandom: CPU, memory traffic and a pipe, as a busy neighbour makes), so the
# machine runs at a load of about nproc + L + the tests. `--load 4` on two cores gives the "load
# 5-7 beside the hog" of issue 41. Default 0 (the hog alone).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10
filter=()
load=0
hog=1
fresh=0
while (($#)); do
    case "$1" in
        --filter) filter=(--filter "$2"); shift 2 ;;
        --load) load="$2"; shift 2 ;;
        --quiet) hog=0; shift ;;
        --fresh-samples) fresh=1; shift ;;
        *) runs="$1"; shift ;;
    esac
done

scripts/install-deps.sh
swift build --build-tests

hogs=()
stop_hogs() { ((${#hogs[@]})) && kill "${hogs[@]}" 2>/dev/null; wait 2>/dev/null || true; }
trap stop_hogs EXIT
for _ in $(seq $((hog * $(nproc)))); do
    (while :; do :; done) &
    hogs+=($!)
done
# The second load (killing a loop leaves its last pipeline of 16 MiB to finish, within a second).
for _ in $(seq "$load"); do
    (while :; do head -c 16M /dev/urandom | gzip -1 >/dev/null; done) &
    hogs+=($!)
done
if ((load > 0)); then echo "a second load of $load gzip loops beside the hog of $(nproc)"; fi

logs=$(mktemp -d)
passed=0
failed=0
declare -A failures=()
for run in $(seq "$runs"); do
    # (the folder WebHarness.sampleDirectory names)
    if ((fresh)); then rm -rf "${TMPDIR:-/tmp}/classic-photos-test-samples"; fi
    log="$logs/run-$run.log"
    if scripts/swift-tests.sh "${filter[@]}" >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "run $run: passed"
    else
        failed=$((failed + 1))
        # (no match is a crash or a hang: grep's status must not end the script under pipefail)
        names=$({ grep -oE '✘ Test [^ ]+' "$log" || true; } | sed 's/✘ Test //' | sort -u | tr '\n' ' ')
        crash=$(grep -m1 -E 'Fatal error|Program crashed' "$log" || true)
        echo "run $run: FAILED ${names:-(no test named: see $log)} ${crash}"
        for name in $names; do failures[$name]=$((${failures[$name]:-0} + 1)); done
    fi
done

echo "$passed passed, $failed failed"
for name in "${!failures[@]}"; do
    echo "  $name failed ${failures[$name]} time(s)"
done
echo "logs: $logs"
((failed == 0))
