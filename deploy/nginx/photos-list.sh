#!/bin/sh
# Writes the app's JSON data source for a folder of photos: [{"name", "url"}, ...], one entry per
# .jpg/.jpeg/.png file, named after the file without its extension (as --photos-dir does), with
# its URL on the photos origin. Then runs the given command, if any (in the compose profile
# `photos`: the stock nginx image's entrypoint).
#
#   PHOTOS_ROOT      the folder (default /srv/photos)
#   PHOTO_LIST       the file written (default /srv/photo-list/photos.json), atomically
#   PHOTOS_BASE_URL  where the origin serves the folder (default http://photos-origin:8080)
#
# File names are kept to letters, digits, space, dot, dash and underscore so that no escaping is
# needed in JSON or (beyond spaces) in URLs; other files are skipped, each with a line saying so.
set -eu

root=${PHOTOS_ROOT:-/srv/photos}
list=${PHOTO_LIST:-/srv/photo-list/photos.json}
base=${PHOTOS_BASE_URL:-http://photos-origin:8080}

mkdir -p "$(dirname "$list")"
partial="$list.partial"
count=0
skipped=0
separator=''
printf '[' > "$partial"
for path in "$root"/*; do
    [ -f "$path" ] || continue
    file=${path##*/}
    case $file in
        .*) continue ;;
        *.[jJ][pP][gG] | *.[jJ][pP][eE][gG] | *.[pP][nN][gG]) ;;
        *) continue ;;
    esac
    if printf '%s' "$file" | grep -q '[^A-Za-z0-9._ -]'; then
        echo "photos-list: skipping \"$file\": use only letters, digits, space, . - _ in photo file names" >&2
        skipped=$((skipped + 1))
        continue
    fi
    url_path=$(printf '%s' "$file" | sed 's/ /%20/g')
    printf '%s\n  {"name": "%s", "url": "%s/%s"}' "$separator" "${file%.*}" "$base" "$url_path" >> "$partial"
    separator=','
    count=$((count + 1))
done
printf '\n]\n' >> "$partial"
mv "$partial" "$list"
echo "photos-list: $count photos from $root listed in $list ($skipped skipped)" >&2
if [ "$count" -eq 0 ]; then
    echo "photos-list: $root has no .jpg, .jpeg or .png files: the app will show an empty list" >&2
fi

if [ "$#" -gt 0 ]; then
    exec "$@"
fi
