#!/usr/bin/env bash
# Fuzzes the EXIF reader and the decode path with libFuzzer + AddressSanitizer.
# Usage: scripts/fuzz.sh [seconds]   (default 60). Seeds are generated into a temporary folder;
# a crash or hang leaves its input in .build-fuzz/artifacts and a non-zero exit status.
# Replay an input with: swift build --product CodecFuzzer && .build/debug/CodecFuzzer <file>
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"

swift build --product CodecFuzzer >/dev/null
swift build -c debug --scratch-path .build-fuzz --product CodecFuzzer \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING >/dev/null

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" .build-fuzz/artifacts
.build/debug/CodecFuzzer --write-seeds "$work/seeds"

# -timeout: any single input over 10 s is a hang; -rss_limit_mb bounds a runaway allocation.
status=0
.build-fuzz/debug/CodecFuzzer "$work/corpus" "$work/seeds" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix=.build-fuzz/artifacts/ -print_final_stats=1 >"$work/log" 2>&1 || status=$?
grep -E "DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|ERROR|SUMMARY|artifact|Test unit written" "$work/log" || true
if [ "$status" -ne 0 ]; then
    tail -60 "$work/log"
    echo "fuzz: FAILED (status $status); inputs in .build-fuzz/artifacts/" >&2
fi
exit "$status"
