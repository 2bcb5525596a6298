#!/usr/bin/env bash
# Runs docker-compose.yml for real with podman-compose, on the images made by base-images.sh and
# build-app-image.sh, under a project name of its own (its containers, networks and volumes are
# removed before and after), with the edges published on free loopback ports:
#   default profile: the page and /healthz through the edge, a photo from new to sepia, the
#     container's user, both healthcheck commands, SIGTERM within the grace period, and
#     `down` then `up` keeping the cache volume's results;
#   cluster profile: three instances and PostgreSQL behind the edge reading one photos origin
#     (the `photos` profile's nginx, joined to the cluster network by an override made here,
#     so every GET is in its log): one GET per photo across them, then one instance's container
#     killed while viewers scroll, and its viewer served by another.
# The HTTP checks are in compose_checks.py. Exits non-zero on the first failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/env.sh"

project=${CLASSIC_PHOTOS_COMPOSE_PROJECT:-classic-photos-check}
# podman-compose 1.0.6 is the first with profiles; Debian 12's is 1.0.3. A pinned one in a venv.
compose_version=1.6.0
venv="$containers_state/venv"
if [[ "$("$venv/bin/podman-compose" --version 2>/dev/null | head -1)" != *"$compose_version"* ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "podman-compose==$compose_version"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/compose-run.XXXXXX")
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
export EDGE_PORT="127.0.0.1:$(free_port)" EDGE_TLS_PORT="127.0.0.1:$(free_port)" EDGE_CLUSTER_PORT="127.0.0.1:$(free_port)" \
    EDGE_PHOTOS_PORT="127.0.0.1:$(free_port)" PHOTOS_DIR="$work/photos"
mkdir -p "$PHOTOS_DIR"
edge="http://$EDGE_PORT"
edge_cluster="http://$EDGE_CLUSTER_PORT"
compose_files=(-f "$repo/docker-compose.yml")
compose() {
    "$venv/bin/podman-compose" -p "$project" "${compose_files[@]}" "$@" >>"$work/compose.log" 2>&1 \
        || { tail -30 "$work/compose.log" >&2; fail "podman-compose $*"; }
}
checks() { python3 -B "$here/compose_checks.py" "$@"; }
step() { printf '\n== %s\n' "$*"; }
pass() { printf '   ok: %s\n' "$*"; }
fail() { printf '   FAILED: %s\n' "$*" >&2; exit 1; }
# The container of a service of this project.
container() {
    podman ps -a --filter "label=com.docker.compose.project=$project" \
        --filter "label=com.docker.compose.service=$1" --format '{{.Names}}' | head -1
}
# Runs a service's healthcheck (no systemd here to run it on its interval) until it passes.
wait_healthy() {
    local name
    name=$(container "$1")
    for _ in $(seq 1 120); do
        podman healthcheck run "$name" >/dev/null 2>&1 && return 0
        sleep 0.5
    done
    fail "$1 did not become healthy in 60 s"
}
# Down with the named volumes, and the anonymous ones the images' VOLUMEs gave containers that
# mount nothing there (the cluster's instances), which `down -v` leaves behind.
down_all() {
    local anonymous
    anonymous=$(podman ps -a -q --filter "label=com.docker.compose.project=$project" \
        | xargs -r podman inspect --format '{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}} {{end}}{{end}}')
    compose --profile cluster --profile photos down -v -t 10
    for volume in $anonymous; do
        podman volume rm "$volume" >/dev/null 2>&1 || true  # a named one went with `down -v`
    done
}
cleanup() {
    local status=$?
    if ((status != 0)); then
        echo "   the containers' last lines:" >&2
        for name in $(podman ps -a --filter "label=com.docker.compose.project=$project" --format '{{.Names}}'); do
            podman logs --tail 15 "$name" 2>&1 | sed "s/^/     $name: /" >&2
        done
    fi
    down_all || true
    rm -rf "$work"
}
trap cleanup EXIT
down_all

step "podman-compose up -d (default profile; the edge on $EDGE_PORT)"
compose up -d
app=$(container app)
checks default "$edge"
# HTTPS with HTTP/2 on the edge's other port, its certificate made at its first start.
answer=$(curl -sk --http2 -o /dev/null -w '%{http_version} %{http_code}' "https://$EDGE_TLS_PORT/healthz")
[[ $answer == "2 200" ]] || fail "https://$EDGE_TLS_PORT/healthz: HTTP version and status '$answer', not '2 200'"
pass "200 /healthz over HTTPS with HTTP/2 through the edge (self-signed: $(podman exec "$(container edge)" \
    openssl x509 -noout -subject -in /etc/nginx/tls/cert.pem))"

step "the app's container: user, healthchecks, SIGTERM"
uid=$(podman exec "$app" id -u)
[[ $uid == 10001 ]] || fail "the app runs as uid $uid, not 10001"
pass "the app runs as uid $uid ($(podman exec "$app" id -un)), image user $(podman image inspect --format '{{.Config.User}}' "$APP_IMAGE")"
# No systemd here to run healthchecks on their interval: run each once, as its timer would.
podman healthcheck run "$app" >/dev/null || fail "the app's healthcheck command failed"
podman healthcheck run "$(container edge)" >/dev/null || fail "the edge's healthcheck command failed"
pass "both healthcheck commands pass (curl /healthz in the app, wget /edge-healthz in the edge)"
grace=$(podman inspect --format '{{.Config.StopTimeout}}' "$app")
started=$(date +%s.%N)
# (podman 4.3 without systemd complains on stderr that it cannot remove a healthcheck timer.)
podman stop "$app" >/dev/null 2>"$work/stop.log" || { cat "$work/stop.log" >&2; fail "podman stop"; }
elapsed=$(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')")
code=$(podman inspect --format '{{.State.ExitCode}}' "$app")
[[ $code == 0 ]] || fail "after SIGTERM the app exited with $code (137: killed at the end of the grace period)"
python3 -c "import sys; sys.exit(not $elapsed < $grace)" || fail "the app took ${elapsed}s to stop (grace: ${grace}s)"
pass "SIGTERM: stopped in ${elapsed}s (grace period ${grace}s), exit code 0"

step "podman-compose down, then up: the cache volume keeps the results"
compose down -t 10
compose up -d
checks cached "$edge"
compose down -t 10

step "cluster profile: PostgreSQL, app-a, app-b, app-c behind the edge on $EDGE_CLUSTER_PORT"
# Photos for the origin: sample JPEGs the app generated into its cache volume above.
volume=$(podman volume inspect --format '{{.Mountpoint}}' "${project}_cache")
# (Read whole, then the first 40 taken: `| head -40` would end `sort` with SIGPIPE, which pipefail makes fatal.)
mapfile -t samples < <(find "$volume" -name '*.jpg' -size +20k | sort)
for path in "${samples[@]:0:40}"; do
    cp "$path" "$PHOTOS_DIR/$(basename "$path" | tr -c 'A-Za-z0-9._\n-' '_')"
done
photos=$(find "$PHOTOS_DIR" -name '*.jpg' | wc -l)
((photos >= 30)) || fail "only $photos sample JPEGs in the cache volume to serve"
cat > "$work/cluster-origin.yml" <<YAML
# The check's only change to the cluster profile: its instances read the photos origin's list.
# (podman-compose appends an override's list to the file's, which names photos already.)
services:
  photos-origin:
    networks: [cluster]
YAML
for name in a b c; do
    printf '  app-%s:\n    environment:\n      CLASSIC_PHOTOS_SOURCE: http://photos-origin:8080/photos.json\n' "$name" \
        >> "$work/cluster-origin.yml"
done
compose_files+=(-f "$work/cluster-origin.yml")
# What the instances need at start, first, healthy: PostgreSQL (an instance that cannot reach it
# exits) and the origin's list (read once). podman-compose waits for `service_healthy` only on
# podman 4.6 and later, so this does what it would, with the compose file's own healthchecks.
compose --profile photos --profile cluster up -d postgres photos-origin
wait_healthy postgres
wait_healthy photos-origin
origin=$(container photos-origin)
pass "PostgreSQL healthy; the photos origin serves $photos photos"
# The instances find both by /etc/hosts, not podman's DNS. One fresh-clone run in four had rows fail
# "Could not connect to the origin within 10 s" (a limit that counts name resolution) on all three
# instances at once, the origin healthy; aardvark-dns 1.4 (Debian 12's) tears its servers down on each
# reload, when containers join the network. A photo so failed stays failed until a viewer retries it.
address() {
    podman inspect --format "{{(index .NetworkSettings.Networks \"${project}_cluster\").IPAddress}}" "$(container "$1")"
}
hosts="[\"postgres:$(address postgres)\", \"photos-origin:$(address photos-origin)\"]"
[[ $hosts != *':"'* ]] || fail "no address on ${project}_cluster for PostgreSQL or the photos origin: $hosts"
cat > "$work/cluster-hosts.yml" <<YAML
services:
YAML
for name in a b c; do
    printf '  app-%s:\n    extra_hosts: %s\n' "$name" "$hosts" >> "$work/cluster-hosts.yml"
done
compose_files+=(-f "$work/cluster-hosts.yml")
compose --profile photos --profile cluster up -d edge-cluster
for name in a b c; do
    podman exec "$(container app-$name)" grep -qw photos-origin /etc/hosts \
        || fail "app-$name's /etc/hosts does not name the photos origin"
done
pass "the instances find PostgreSQL and the photos origin by /etc/hosts: $hosts"
checks cluster "$edge_cluster" --origin "$origin" \
    --container "a=$(container app-a)" --container "b=$(container app-b)" --container "c=$(container app-c)"
echo
echo "compose checks passed"
