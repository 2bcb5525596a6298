# Sourced by the scripts beside it: podman as it runs on these machines, and the names of the
# images made here. Every setting can be given in the environment.
#
# runc, not crun (crun cannot start containers on hosts with hybrid cgroups), and ulimits no higher
# than the machine's hard limits (podman's defaults ask for more, which runc cannot grant).

containers_state=${CLASSIC_PHOTOS_CONTAINERS_STATE:-/var/tmp/classic-photos-containers}
mkdir -p "$containers_state"
if [[ ! -f "${CONTAINERS_CONF:-}" ]]; then
    nofile=$(ulimit -Hn); nproc=$(ulimit -Hu)
    [[ $nofile == unlimited || $nofile -gt 20000 ]] && nofile=20000
    [[ $nproc == unlimited || $nproc -gt 32768 ]] && nproc=32768
    cat > "$containers_state/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
CONF
    export CONTAINERS_CONF=$containers_state/containers.conf
fi

# The base images, made on the machine from Debian packages when no registry is reachable. The
# names docker-compose.yml and the Dockerfile take from these variables default to the registry's.
export RUN_IMAGE=${RUN_IMAGE:-localhost/debian:bookworm-slim}
export SWIFT_IMAGE=${SWIFT_IMAGE:-localhost/swift:6.3-bookworm}
export NGINX_IMAGE=${NGINX_IMAGE:-localhost/nginx:bookworm}
export POSTGRES_IMAGE=${POSTGRES_IMAGE:-localhost/postgres:15-bookworm}
# The product's image, as docker-compose.yml names it.
export APP_IMAGE=${APP_IMAGE:-localhost/classic-photos:local}

image_exists() { podman image exists "$1"; }
