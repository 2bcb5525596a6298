#!/usr/bin/env bash
# Runs every benchmark (Benchmarks/*.py) in one go and writes the figures to artifacts/benchmarks.txt.
# Installs what it needs (wrk, nginx-light, nghttp2-client, libvips-tools, Pillow, h2), builds release in its own
# scratch path (.build-bench), talks to loopback only. Takes about 15 minutes on 2 cores.
# Extra arguments are not used; set BENCH_QUICK=1 for a shorter run (fewer stops, shorter wrk runs).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --tests  # the browser benchmarks (first paint, lazy loading) drive headless Chromium
apt_packages=(wrk nginx-light libvips-tools postgresql nghttp2-client)
missing=()
for package in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    sudo_cmd=()
    [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
python3 -c 'import PIL' 2>/dev/null || python3 -m pip install -q Pillow 2>/dev/null \
    || python3 -m pip install -q --break-system-packages Pillow
python3 -c 'import h2' 2>/dev/null || python3 -m pip install -q h2 2>/dev/null \
    || python3 -m pip install -q --break-system-packages h2

swift build -c release --scratch-path .build-bench --product classic-photos
swift build -c release --scratch-path .build-bench --product ThumbnailBenchmark

# 1,000 viewers need more than the usual 1,024 open files (the server inherits the limit).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 65536 2>/dev/null || true

mkdir -p artifacts
out=artifacts/benchmarks.txt
quick=()
[[ "${BENCH_QUICK:-}" == 1 ]] && quick=(1)
{
    echo "ClassicPhotos Live benchmarks, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
    python3 -c 'import sys; sys.path.insert(0, "Benchmarks"); import common; print("machine:", common.machine())'
    echo
    cd Benchmarks
    if ((${#quick[@]})); then
        python3 scroll_traces.py --stops 4 --stop-timeout 10
        echo; python3 viewers.py --seconds 10 --stall-seconds 15
        echo; python3 http_throughput.py --duration 5 --rounds 1
        echo; python3 http2_throughput.py --requests 20000 --rounds 1
        echo; python3 thumbnails.py --seconds 3 --vips-rounds 3
        echo; python3 memory.py --budgets 32
        echo; python3 resident.py --requests 300000 --close-requests 50000
        echo; python3 lazy_loading.py --runs 1
        echo; python3 first_pixels.py --jumps 8
        echo; python3 cluster.py --viewers 1000 --seconds 10
        echo; python3 list_length.py --rows 300 10000 --rounds 2
        echo; python3 followers.py --followers 200 --jumps 4 --wheels 2
        echo; python3 follow_lag.py --runs 1
    else
        python3 scroll_traces.py
        echo; python3 viewers.py
        echo; python3 http_throughput.py
        echo; python3 http2_throughput.py
        echo; python3 thumbnails.py
        echo; python3 memory.py
        echo; python3 resident.py
        echo; python3 first_paint.py
        echo; python3 lazy_loading.py --runs 6
        echo; python3 first_pixels.py
        echo; python3 cluster.py
        echo; python3 list_length.py
        echo; python3 followers.py
        echo; python3 follow_lag.py
    fi
} 2>&1 | tee "$out"
echo "written to $out"
