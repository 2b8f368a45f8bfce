#!/usr/bin/env bash
# Run Skymark on the embedded default: SQLite (WAL), local media, filesystem Celery broker,
# a media worker and a model-view worker beside gunicorn. Environment variables override every default (README).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
export SKYMARK_DATA_DIR="${SKYMARK_DATA_DIR:-$PWD/var}"
mkdir -p "$SKYMARK_DATA_DIR"
if [[ -z "${SECRET_KEY:-}" ]]; then
  # Generated once per install and kept out of git; production sets SECRET_KEY itself.
  [[ -s "$SKYMARK_DATA_DIR/secret_key" ]] || "$BIN/python" -c 'import secrets; print(secrets.token_urlsafe(50))' \
    > "$SKYMARK_DATA_DIR/secret_key"
  SECRET_KEY="$(cat "$SKYMARK_DATA_DIR/secret_key")"
  export SECRET_KEY
fi
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"

"$BIN/python" manage.py migrate --noinput
"$BIN/python" manage.py collectstatic --noinput -v 0
"$BIN/python" manage.py seed_demo

# Each worker runs under a small supervisor: if it dies (killed, out of memory) it is started again,
# and the web server never goes down with it. Media jobs (and CVAA) have one worker; model views one
# of their own, with a process per core but one (the web server keeps a core), so a backlog of views
# never holds up a media job.
supervise_worker() {
  local name=$1; shift
  trap 'kill "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 0' TERM INT
  while true; do
    "$BIN/celery" -A config worker -n "$name@%h" "$@" -l info --without-gossip --without-mingle --without-heartbeat &
    child=$!
    wait "$child" && status=0 || status=$?
    echo "Skymark: the Celery worker $name exited (status $status); starting it again in 2 s" >&2
    sleep 2
  done
}
CORES="$(nproc 2>/dev/null || echo 2)"
VIEW_WORKERS="${VIEW_WORKERS:-$(( CORES > 2 ? CORES - 1 : 1 ))}"
supervise_worker media --pool=solo -Q media,gpu &
media_supervisor=$!
supervise_worker views --pool=prefork --concurrency "$VIEW_WORKERS" -Q views &
views_supervisor=$!

echo "Skymark: http://$HOST:$PORT/  (log in with a demo user printed above; Ctrl-C stops)"
"$BIN/gunicorn" -c config/gunicorn.py config.wsgi:application --bind "$HOST:$PORT" --access-logfile - &
web=$!
trap 'kill "$web" "$media_supervisor" "$views_supervisor" 2>/dev/null; wait 2>/dev/null' EXIT INT TERM
wait "$web"
