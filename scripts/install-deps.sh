#!/usr/bin/env bash
# Installs what a fresh Debian machine with Swift lacks: the C libraries the package links, and the
# tools the tests use. Idempotent: packages already present are not fetched again.
set -euo pipefail

apt_packages=(libcurl4-openssl-dev libpng-dev libjpeg-dev pkg-config)
if [[ "${1:-}" == "--tests" ]]; then
    apt_packages+=(python3 python3-pip)
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
