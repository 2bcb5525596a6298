#!/usr/bin/env bash
# Runs the cluster on loopback: PostgreSQL (a fresh data folder made with initdb, run as an
# unprivileged user since PostgreSQL refuses root), N instances of `classic-photos serve` on it
# (default 3) and the nginx edge that keeps each viewer on one instance (deploy/nginx/cluster.conf).
# Prints the URL; Ctrl-C stops them all.
#
#   scripts/cluster.sh [N] [-- extra serve flags]      e.g. scripts/cluster.sh 3 -- --photo-count 600
#
# Environment: EDGE_PORT (default 8090), CLASSIC_PHOTOS_BIN (default: build and use .build/debug).
set -euo pipefail
cd "$(dirname "$0")/.."

count=${1:-3}
[[ "$count" =~ ^[1-9][0-9]?$ ]] || { echo "usage: scripts/cluster.sh [N] [-- serve flags]" >&2; exit 2; }
shift || true
[[ "${1:-}" == "--" ]] && shift
extra=("$@")
edge_port=${EDGE_PORT:-8090}

pg_bin() {
    command -v "$1" 2>/dev/null && return
    ls -d /usr/lib/postgresql/*/bin/"$1" 2>/dev/null | sort -V | tail -1
}
for tool in initdb pg_ctl; do
    [[ -n "$(pg_bin "$tool")" ]] || { echo "PostgreSQL's $tool is missing: scripts/install-deps.sh --tests installs it" >&2; exit 1; }
done
command -v nginx >/dev/null || { echo "nginx is missing: scripts/install-deps.sh --tests installs it" >&2; exit 1; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

binary=${CLASSIC_PHOTOS_BIN:-}
if [[ -z "$binary" ]]; then
    swift build --product classic-photos >&2
    binary=.build/debug/classic-photos
fi

work=$(mktemp -d /tmp/classic-photos-cluster.XXXXXX)
chmod 755 "$work"
pids=()
pg_run=()
stop_all() {
    trap - EXIT INT TERM
    echo "stopping"
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    "${pg_run[@]}" "$(pg_bin pg_ctl)" -D "$work/pg/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap stop_all EXIT INT TERM

# PostgreSQL: as an unprivileged user when run as root.
mkdir -p "$work/pg"
if [[ $(id -u) -eq 0 ]]; then
    id classic-photos-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin classic-photos-pg
    chown classic-photos-pg "$work/pg"
    pg_run=(runuser -u classic-photos-pg --)
fi
pg_port=$(free_port)
"${pg_run[@]}" "$(pg_bin initdb)" -D "$work/pg/data" -A trust -U classic --no-sync >/dev/null
"${pg_run[@]}" "$(pg_bin pg_ctl)" -D "$work/pg/data" -l "$work/pg/log" -w \
    -o "-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
database_url="postgres://classic@127.0.0.1:$pg_port/postgres"
echo "PostgreSQL on 127.0.0.1:$pg_port (log $work/pg/log)"

# The instances, named a, b, c, ... each with its own log; one shared sample folder.
names=(a b c d e f g h i j k l m n o p q r s t u v w x y z)
((count <= ${#names[@]})) || { echo "at most ${#names[@]} instances" >&2; exit 2; }
ports=()
for ((i = 0; i < count; i++)); do
    name=${names[$i]}
    port=$(free_port)
    ports+=("$port")
    CLASSIC_PHOTOS_DATABASE_URL=$database_url CLASSIC_PHOTOS_INSTANCE_NAME=$name \
        CLASSIC_PHOTOS_TRUSTED_PROXY=127.0.0.1 CLASSIC_PHOTOS_CACHE_DIR="$work/cache-$name" \
        "$binary" serve --port "$port" "${extra[@]}" > "$work/$name.out" 2> "$work/$name.log" &
    pids+=($!)
    echo "instance $name on 127.0.0.1:$port (log $work/$name.log)"
done

# The edge: deploy/nginx/cluster.conf with these instances between its "instances" marks.
mkdir -p "$work/edge"
{
    echo "    map \$cookie_classic_photos_instance \$instance_upstream {"
    echo "        default cluster_any;"
    for ((i = 0; i < count; i++)); do echo "        ${names[$i]} cluster_${names[$i]};"; done
    echo "    }"
    echo "    upstream cluster_any {"
    for ((i = 0; i < count; i++)); do echo "        server 127.0.0.1:${ports[$i]} max_fails=1 fail_timeout=5s;"; done
    echo "    }"
    for ((i = 0; i < count; i++)); do
        echo "    upstream cluster_${names[$i]} {"
        echo "        server 127.0.0.1:${ports[$i]} max_fails=1 fail_timeout=5s;"
        for ((j = 1; j < count; j++)); do echo "        server 127.0.0.1:${ports[$(((i + j) % count))]} backup;"; done
        echo "    }"
    done
} > "$work/edge/instances.conf"
user_line=''
[[ $(id -u) -eq 0 ]] && user_line='user root root;'
awk -v instances="$work/edge/instances.conf" '
    /instances \(begin\)/ { print; while ((getline line < instances) > 0) print line; skip = 1; next }
    /instances \(end\)/ { skip = 0 }
    !skip { print }' deploy/nginx/cluster.conf |
    sed -e "s|^user nginx;|$user_line|" -e "s|^pid /var/run/nginx.pid;|pid $work/edge/nginx.pid;|" \
        -e "s|^error_log stderr warn;|error_log $work/edge/error.log warn;|" \
        -e "s|listen 8080 default_server;|listen 127.0.0.1:$edge_port default_server;|" \
        -e "s|^http {|http {\n    client_body_temp_path $work/edge/body;\n    proxy_temp_path $work/edge/proxy;\n    fastcgi_temp_path $work/edge/fastcgi;\n    uwsgi_temp_path $work/edge/uwsgi;\n    scgi_temp_path $work/edge/scgi;|" \
        > "$work/edge/nginx.conf"
nginx -p "$work/edge" -c "$work/edge/nginx.conf" -g 'daemon off;' &
pids+=($!)

for ((i = 0; i < count; i++)); do
    until grep -q "ClassicPhotos Live on" "$work/${names[$i]}.out" 2>/dev/null; do
        kill -0 "${pids[$i]}" 2>/dev/null || { echo "instance ${names[$i]} exited:" >&2; tail -5 "$work/${names[$i]}.log" >&2; exit 1; }
        sleep 0.2
    done
done
echo "ClassicPhotos Live cluster of $count on http://127.0.0.1:$edge_port/ (Ctrl-C stops everything)"
wait -n "${pids[@]}" || true
