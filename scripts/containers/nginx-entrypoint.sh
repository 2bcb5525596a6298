#!/bin/sh
# The entrypoint of the nginx image made from Debian's packages (nginx.Containerfile), doing what
# the registry's image's does for docker-compose.yml: before nginx starts, run the executable
# *.sh files in /docker-entrypoint.d in order (the edge's tls-cert.sh makes its certificate
# there) and source the *.envsh ones; then run the command.
set -e
if [ "${1:-}" = nginx ] && [ -d /docker-entrypoint.d ]; then
    for file in $(find /docker-entrypoint.d/ -follow -type f | sort -V); do
        case $file in
            *.envsh) if [ -x "$file" ]; then . "$file"; else echo "$0: ignoring $file, not executable"; fi ;;
            *.sh) if [ -x "$file" ]; then "$file"; else echo "$0: ignoring $file, not executable"; fi ;;
            *) echo "$0: ignoring $file" ;;
        esac
    done
fi
exec "$@"
