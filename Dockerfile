# syntax=docker/dockerfile:1
# ClassicPhotos Live: `docker compose up --build` (see docker-compose.yml), or on its own:
#   docker build -t classic-photos .
#   docker run --rm -p 127.0.0.1:8080:8080 -v classic-photos-cache:/var/cache/classic-photos classic-photos
# The app limits what each client can make it hold (README "Configuration"); docker-compose.yml
# still puts a stock nginx edge in front (deploy/nginx), where TLS and caching would go.

# The base images are build arguments, so that images made elsewhere can stand in for the
# registry's (scripts/check-containers.sh --run makes both from Debian's packages).
# SWIFT_IMAGE: the Debian 12 (bookworm) toolchain image, so the -dev packages match the runtime
# libraries of RUN_IMAGE.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUN_IMAGE=debian:bookworm-slim

# ---------------------------------------------------------------- build
FROM ${SWIFT_IMAGE} AS build

# Apt versions are not pinned (DL3008): Debian replaces them on every security update, so pins
# would break the build; the bookworm base tags keep the major versions fixed.
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libcurl4-openssl-dev libjpeg-dev libpng-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /build

# Package.resolved is optional (git ignores it); when present, its pins are used.
COPY Package.* ./
COPY Sources ./Sources
# Only so SwiftPM can load the manifest: it checks that every declared target's folder exists,
# test targets included, even when building one product.
COPY Tests ./Tests
# The Swift runtime and Foundation are linked statically: the run stage needs only the C
# libraries (libcurl, libpng, libjpeg-turbo) and libstdc++. The cache mount keeps .build (fetched
# dependencies, compiled modules) between builds, so a source change rebuilds only what it touches.
# Debug info is stripped (symbols stay, so crash backtraces still name functions).
RUN --mount=type=cache,target=/build/.build,id=classic-photos-build,sharing=locked \
    swift build -c release --static-swift-stdlib --product classic-photos \
    && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/classic-photos" /out/classic-photos \
    && strip --strip-debug /out/classic-photos

# ---------------------------------------------------------------- run
FROM ${RUN_IMAGE}

# Exactly what the binary links beyond libc (its NEEDED entries, checked in this image by
# scripts/containers/build-app-image.sh): libcurl4, libpng16-16, libjpeg62-turbo, libstdc++6,
# libgcc-s1 and zlib1g (already in the base); no libxml2, no ICU, no Swift runtime. ldd inside
# the image finds every one, with libcurl's own. ca-certificates for https data sources and photos;
# curl for the HEALTHCHECK (it depends on libcurl4, which the app needs anyway).
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        ca-certificates curl libcurl4 libgcc-s1 libjpeg62-turbo libpng16-16 libstdc++6 \
    && rm -rf /var/lib/apt/lists/*

# A non-root user (numeric in USER below, so runtimes can check it is not root); the cache folder is created and owned by it before it is declared a volume, so a
# new named volume starts with that ownership.
RUN groupadd --system --gid 10001 classicphotos \
    && useradd --system --uid 10001 --gid classicphotos --home-dir /app --no-create-home \
        --shell /usr/sbin/nologin classicphotos \
    && install -d -o classicphotos -g classicphotos -m 0750 /var/cache/classic-photos

# The default --public-dir and --templates-dir (Public, Templates) resolve against the working folder.
WORKDIR /app
COPY --from=build /out/classic-photos /usr/local/bin/classic-photos
COPY Public ./Public
COPY Templates ./Templates

ENV CLASSIC_PHOTOS_HOST=0.0.0.0 \
    CLASSIC_PHOTOS_PORT=8080 \
    CLASSIC_PHOTOS_CACHE_DIR=/var/cache/classic-photos
VOLUME ["/var/cache/classic-photos"]
EXPOSE 8080

USER 10001:10001

# 200 once the photo list is loaded; 503 while it loads (the first start also generates the sample
# photos into the cache: a few seconds) or when it failed to load.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD ["/bin/sh", "-c", "curl -fsS -o /dev/null \"http://127.0.0.1:${CLASSIC_PHOTOS_PORT:-8080}/healthz\" || exit 1"]

# SIGTERM: the app tells connected viewers, cancels work, flushes the cache index and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/classic-photos"]
CMD ["serve"]
