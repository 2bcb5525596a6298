#!/usr/bin/env bash
# The container files run for real with podman (scripts/check-containers.sh --run): installs
# podman and what making images needs when missing, makes the base images when missing
# (base-images.sh), builds the product's image from the Dockerfile (build-app-image.sh), and runs
# docker-compose.yml's default and cluster profiles with podman-compose (compose-run.sh).
# Prints each part's time. `run.sh images` makes only the images (scripts/test.sh does this beside
# the host's build); `run.sh compose` only runs the compose files on the images made before.
set -euo pipefail
parts=${1:-all}
case $parts in
    all|images|compose) ;;
    *) echo "usage: $0 [images|compose]" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)

missing=()
for tool in podman buildah debootstrap runc; do
    command -v "$tool" >/dev/null || missing+=("$tool")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    apt-get update -qq
    # With their recommends: netavark's DNS (aardvark-dns) lets containers find each other by name.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah debootstrap runc aardvark-dns >/dev/null
fi

part() {
    local name=$1 started=$SECONDS; shift
    printf '\n== %s\n' "$name"
    "$@"
    printf '   (%s: %d s)\n' "$name" $((SECONDS - started))
}
if [[ $parts != compose ]]; then
    part "base images" "$here/base-images.sh"
    part "the product's image" "$here/build-app-image.sh"
fi
if [[ $parts != images ]]; then
    part "docker-compose.yml with podman-compose" "$here/compose-run.sh"
fi
