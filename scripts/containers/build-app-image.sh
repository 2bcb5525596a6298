#!/usr/bin/env bash
# Builds the product's image from the repository's Dockerfile, unchanged, with podman: the base
# images (scripts/containers/base-images.sh) passed as its build arguments. SwiftPM inside the build
# cannot reach GitHub here, so the build sees what the machine's own builds see: the folder of
# package copies that the system git configuration's `insteadOf` names, read-only, and a gitconfig
# holding only that rewrite (never the machine's whole git configuration). Where GitHub is
# reachable and no rewrite is configured, neither is mounted.
# Then prints the image's size and what the binary links (`ldd`), and checks that the run stage
# holds every library it needs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/env.sh"

mounts=()
gitconfig="$containers_state/gitconfig"
: > "$gitconfig"
while read -r key target; do
    [[ $key =~ ^url\.(.*)\.insteadof$ ]] || continue
    mirror=${BASH_REMATCH[1]}
    [[ -d $mirror ]] || continue
    git config --file "$gitconfig" --add "url.$mirror.insteadOf" "$target"
    [[ " ${mounts[*]} " == *" $mirror:$mirror:ro "* ]] || mounts+=(-v "$mirror:$mirror:ro")
done < <(git config --system --get-regexp '^url\.' 2>/dev/null || true)
if [[ -s $gitconfig ]]; then
    mounts+=(-v "$gitconfig:/etc/gitconfig:ro")
fi

echo "podman build -t $APP_IMAGE --build-arg SWIFT_IMAGE=$SWIFT_IMAGE --build-arg RUN_IMAGE=$RUN_IMAGE ${mounts[*]} ."
started=$SECONDS
podman build --layers -t "$APP_IMAGE" \
    --build-arg SWIFT_IMAGE="$SWIFT_IMAGE" --build-arg RUN_IMAGE="$RUN_IMAGE" \
    "${mounts[@]}" "$repo" > "$containers_state/build.log" 2>&1 \
    || { tail -40 "$containers_state/build.log" >&2; echo "   FAILED: podman build (log: $containers_state/build.log)" >&2; exit 1; }
echo "   ok: built in $((SECONDS - started)) s: $(podman image inspect --format '{{.Size}}' "$APP_IMAGE" \
    | awk '{ printf "%.0f MB", $1 / 1000000 }')"

# What the binary needs, seen inside the image: every library found, and which beyond libc.
ldd_out=$(podman run --rm --entrypoint ldd "$APP_IMAGE" /usr/local/bin/classic-photos)
if grep -q 'not found' <<<"$ldd_out"; then
    echo "$ldd_out" >&2
    echo "   FAILED: the run stage lacks libraries the binary needs" >&2
    exit 1
fi
echo "   ok: ldd inside the image finds all $(grep -c '=>' <<<"$ldd_out") libraries the binary loads"
# What the binary itself names (the rest come with libcurl), read on the host where readelf is.
if command -v readelf >/dev/null; then
    copy=$(podman create "$APP_IMAGE")
    podman cp "$copy:/usr/local/bin/classic-photos" "$containers_state/classic-photos" && podman rm -v "$copy" >/dev/null
    echo "   ok: the binary ($(du -m "$containers_state/classic-photos" | cut -f1) MB) links: $(readelf -d \
        "$containers_state/classic-photos" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd ' ')"
    rm -f "$containers_state/classic-photos"
fi
