#!/usr/bin/env bash
# Installs what a fresh Debian machine with Swift lacks: the C libraries the package links, and,
# with --tests, what the browser, hostile-client and cluster tests use (headless Chromium and its
# driver, pytest, selenium, REDbot, PostgreSQL, nginx).
# Idempotent: what is already there is not fetched again.
set -euo pipefail

apt_packages=(libcurl4-openssl-dev libpng-dev libjpeg-dev pkg-config)
if [[ "${1:-}" == "--tests" ]]; then
    # PostgreSQL and nginx for the cluster tests (Tests/cluster) and scripts/cluster.sh.
    # openssl and curl: certificates and a client of its own for the HTTPS tests.
    apt_packages+=(chromium chromium-driver postgresql nginx-light openssl curl)
    command -v python3 >/dev/null || apt_packages+=(python3)
    python3 -m pip --version >/dev/null 2>&1 || apt_packages+=(python3-pip)
fi

missing=()
for package in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    sudo_cmd=()
    [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [[ "${1:-}" == "--tests" ]]; then
    pip_install() {
        # Debian's own Python refuses pip installs outside a virtualenv unless told otherwise (PEP 668).
        python3 -m pip install -q "$@" 2>/dev/null || python3 -m pip install -q --break-system-packages "$@"
    }
    for requirements in "$(dirname "$0")"/../Tests/{browser,hostile}/requirements.txt; do
        if [[ -f "$requirements" ]]; then pip_install -r "$requirements"; fi
    done
    # axe-core's axe.min.js, carried by a package whose own dependencies (playwright) the tests do not use.
    no_deps="$(dirname "$0")/../Tests/browser/requirements-no-deps.txt"
    if [[ -f "$no_deps" ]]; then pip_install --no-deps -r "$no_deps"; fi
fi
