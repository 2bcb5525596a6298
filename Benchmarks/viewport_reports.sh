#!/bin/bash
# Viewport reports a second, and the server's CPU per report: wrk -c50 for 5 s posting one viewer's
# scroll report ({"viewer": ID, "scrolling": true}) to a server of 300 sample photos (issue 36).
#   Benchmarks/viewport_reports.sh [BINARY]   (default: the release build of scripts/bench.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build-bench/release/classic-photos}
PORT=$((20000 + RANDOM % 20000))
DIR=$(mktemp -d)
# The samples are made once and kept: making them is not what is measured.
CACHE=${TMPDIR:-/tmp}/classic-photos-viewport-reports-cache
"$BIN" serve --host 127.0.0.1 --port $PORT --cache-dir "$CACHE" --public-dir Public --templates-dir Templates \
    --photo-count 300 --sample-latency-ms 0 > "$DIR/log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.2; done
VIEWER=$(curl -s -X POST "http://127.0.0.1:$PORT/api/viewers" | python3 -c 'import json, sys; print(json.load(sys.stdin)["viewer"])')
cat > "$DIR/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"viewer": "$VIEWER", "scrolling": true}'
wrk.headers["Content-Type"] = "application/json"
LUA
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
before=$(ticks)
rate=$(wrk -t1 -c50 -d5 -s "$DIR/post.lua" "http://127.0.0.1:$PORT/api/viewport" | awk '/Requests\/sec/ {print $2}')
used=$(( $(ticks) - before ))
python3 -c "r, t = $rate, $used / $(getconf CLK_TCK); print(f'{r:,.0f} reports/s, server CPU {t:.2f} s, {1e6 * t / (r * 5):.0f} us a report')"
