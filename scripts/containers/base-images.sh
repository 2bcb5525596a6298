#!/usr/bin/env bash
# Makes the base images the container files need, each only when it is missing (so a second run,
# or a later CI stage, reuses them): no image registry is reachable here, so they are made from
# Debian's packages on the machine.
#   RUN_IMAGE       Debian 12 minbase, debootstrapped from the machine's Debian mirror (~1 min)
#   SWIFT_IMAGE     RUN_IMAGE + what a Swift build needs + the machine's toolchain (~2 min)
#   NGINX_IMAGE     RUN_IMAGE + Debian's nginx, laid out as the official image is
#   POSTGRES_IMAGE  RUN_IMAGE + Debian's PostgreSQL, started as the official image is
# Settings: the variables above (scripts/containers/env.sh), DEBIAN_MIRROR (default: the
# machine's apt sources), SWIFT_TOOLCHAIN (default: the `usr` folder holding the machine's `swift`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"

# The first bookworm mirror in the machine's apt sources (one-line or deb822 form).
debian_mirror() {
    local files=()
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [[ -f $file ]] && files+=("$file")
    done
    ((${#files[@]})) || return 0
    awk '
        /^deb[ \t]/ && $3 == "bookworm" { print $2; exit }
        /^URIs:/ { uri = $2 }
        /^Suites:/ && uri != "" { for (i = 2; i <= NF; i++) if ($i == "bookworm") { print uri; exit } }
        /^$/ { uri = "" }
    ' "${files[@]}"
}

# The recipe of an image made from a Containerfile here: a hash of it and the files it copies in,
# kept as the image's label, so an image made by an older recipe is made again (from podman's
# layer cache where the steps are unchanged).
recipe() { cat "$here/$1" "$here/${1%.Containerfile}"-*.sh 2>/dev/null | sha256sum | cut -c1-16; }
current() { [[ "$(podman image inspect --format '{{index .Labels "classic-photos.recipe"}}' "$1" 2>/dev/null)" == "$(recipe "$2")" ]]; }

# build_base IMAGE CONTAINERFILE [PODMAN BUILD ARGS...]: FROM RUN_IMAGE, its output in the state folder.
build_base() {
    local image=$1 file=$2; shift 2
    podman build --build-arg BASE="$RUN_IMAGE" --label "classic-photos.recipe=$(recipe "$file")" \
        -t "$image" -f "$here/$file" "$@" "$here" \
        > "$containers_state/${file%.Containerfile}-image.log" 2>&1 \
        || { tail -20 "$containers_state/${file%.Containerfile}-image.log" >&2; exit 1; }
}

if ! image_exists "$RUN_IMAGE"; then
    mirror=${DEBIAN_MIRROR:-$(debian_mirror)}
    mirror=${mirror:-http://deb.debian.org/debian}
    echo "making $RUN_IMAGE: debootstrap --variant=minbase bookworm from $mirror"
    rootfs=$(mktemp -d "${TMPDIR:-/tmp}/debian-rootfs.XXXXXX")
    trap 'rm -rf "$rootfs"' EXIT
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" > "$containers_state/debootstrap.log" 2>&1 \
        || { tail -20 "$containers_state/debootstrap.log" >&2; exit 1; }
    # As the registry's slim image: updates and security sources, no package lists or downloaded
    # packages kept.
    security=${mirror%/debian}/debian-security
    cat > "$rootfs/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
SOURCES
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb
    tar -C "$rootfs" -c . | podman import -q --change 'CMD ["bash"]' - "$RUN_IMAGE" >/dev/null
    rm -rf "$rootfs"
    trap - EXIT
fi

if ! current "$SWIFT_IMAGE" swift.Containerfile; then
    toolchain=${SWIFT_TOOLCHAIN:-$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")}
    echo "making $SWIFT_IMAGE: the toolchain from $toolchain"
    build_base "$SWIFT_IMAGE" swift.Containerfile -v "$toolchain:/host-swift:ro"
fi

if ! current "$NGINX_IMAGE" nginx.Containerfile; then
    echo "making $NGINX_IMAGE"
    build_base "$NGINX_IMAGE" nginx.Containerfile
fi

if ! current "$POSTGRES_IMAGE" postgres.Containerfile; then
    echo "making $POSTGRES_IMAGE"
    build_base "$POSTGRES_IMAGE" postgres.Containerfile
fi

podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' \
    | grep -E "^(${RUN_IMAGE}|${SWIFT_IMAGE}|${NGINX_IMAGE}|${POSTGRES_IMAGE}) " | sed 's/^/   /'
