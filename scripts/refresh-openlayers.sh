#!/usr/bin/env bash
# Refresh the vendored OpenLayers build in static/vendor/ol from the npm registry (never a CDN).
#
#   scripts/refresh-openlayers.sh            # the version pinned below
#   scripts/refresh-openlayers.sh 10.11.0    # another version, then commit the result
#
# Downloads the `ol` package tarball, checks it against the registry's sha512 integrity, and copies
# dist/ol.js, ol.css and LICENSE.md into static/vendor/ol, recording the version in VERSION.
# Uses `npm pack` when npm is installed; otherwise (or with OL_USE_CURL=1) curl, openssl and python3.
set -euo pipefail

PINNED=10.11.0
VERSION="${1:-$PINNED}"
REGISTRY="${NPM_REGISTRY:-https://registry.npmjs.org}"
cd "$(dirname "$0")/.."
DEST=static/vendor/ol

if ! [[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "refresh-openlayers: give an exact version like 10.11.0, not '$VERSION'" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [[ -z "${OL_USE_CURL:-}" ]] && command -v npm >/dev/null 2>&1; then
  # npm pack checks the tarball's integrity against the registry itself.
  (cd "$work" && npm pack --silent --registry "$REGISTRY" "ol@$VERSION" >/dev/null)
  tarball="$(ls "$work"/ol-"$VERSION".tgz)"
else
  meta="$work/meta.json"
  curl -fsSL "$REGISTRY/ol/$VERSION" -o "$meta"
  read -r url integrity < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["dist"]
print(d["tarball"], d["integrity"])' "$meta")
  tarball="$work/ol-$VERSION.tgz"
  curl -fsSL "$url" -o "$tarball"
  expected="${integrity#sha512-}"
  actual="$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [[ "$expected" != "$actual" ]]; then
    echo "refresh-openlayers: $url does not match the registry's sha512 integrity" >&2
    exit 1
  fi
fi

tar -xzf "$tarball" -C "$work" package/dist/ol.js package/ol.css package/LICENSE.md
mkdir -p "$DEST"
cp "$work/package/dist/ol.js" "$DEST/ol.js"
cp "$work/package/ol.css" "$DEST/ol.css"
cp "$work/package/LICENSE.md" "$DEST/LICENSE.md"
echo "$VERSION" > "$DEST/VERSION"
echo "OpenLayers $VERSION -> $DEST (ol.js $(wc -c < "$DEST/ol.js") bytes)"
