#!/usr/bin/env bash
# Install the Debian packages Skymark needs when they are missing: ffmpeg, libvips, nodejs (the
# front-end unit tests) and postgresql-client (pg_dump/pg_restore for `manage.py backup`/`restore`)
# always; for the tests also chromium (browser tests), npm (tsc) and the PostgreSQL server programs
# (the load test starts a private cluster of its own, bench/harness/pgcluster.py).
# Usage: scripts/system-deps.sh [--with-browser]
set -euo pipefail

need=()
command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 || need+=(ffmpeg)
# libvips builds the satellite tile pyramids (pyvips loads it); vips is its command line, used by bench/.
command -v vips >/dev/null 2>&1 || need+=(libvips42 libvips-tools)
# node runs the unit tests of static/js (make jstest); the pages themselves need no Node.
command -v node >/dev/null 2>&1 || need+=(nodejs)
# backup/restore on PostgreSQL; they refuse a server newer than themselves, so match the server's
# major version (postgresql-client-NN) when it is newer than this Debian's default.
command -v pg_dump >/dev/null 2>&1 && command -v pg_restore >/dev/null 2>&1 || need+=(postgresql-client)
if [[ "${1:-}" == "--with-browser" ]]; then
  [[ -x /usr/bin/chromium ]] || need+=(chromium)
  # npm installs the JSDoc typechecker (tsc) that `make test` runs over static/js.
  command -v npm >/dev/null 2>&1 || need+=(npm)
  # initdb and pg_ctl: Debian keeps them off PATH, in /usr/lib/postgresql/<version>/bin.
  pg_bin="$(pg_config --bindir 2>/dev/null || true)"
  if ! [[ -x "$pg_bin/initdb" && -x "$pg_bin/pg_ctl" ]] && ! compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null \
    && ! command -v pg_ctl >/dev/null 2>&1; then
    need+=(postgresql)
  fi
fi
[[ ${#need[@]} -eq 0 ]] && exit 0

echo "Installing Debian packages: ${need[*]}"
if [[ $(id -u) -eq 0 ]]; then
  apt=(apt-get)
elif command -v sudo >/dev/null 2>&1; then
  apt=(sudo apt-get)
else
  echo "error: ${need[*]} missing and this user cannot run apt-get; install them and retry." >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${apt[@]}" update -qq
"${apt[@]}" install -y -qq --no-install-recommends "${need[@]}" >/dev/null
