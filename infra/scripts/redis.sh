#!/usr/bin/env bash
# A Redis for tests and local runs.
#
#   infra/scripts/redis.sh start    prints the URL (redis://127.0.0.1:PORT) on stdout
#   infra/scripts/redis.sh stop     stops the server this script started (never the machine's own)
#   infra/scripts/redis.sh status   prints the URL and exits 0 when one answers, else exits 3
#
# The machine's Redis on 127.0.0.1:6379 (WEIR_REDIS_SHARED_PORT) is used when it answers PONG. Otherwise Debian's
# redis-server is installed when missing and started on WEIR_REDIS_PORT (default 16379, a free one
# when that is busy) with the persistence Weir needs (redis-durability.conf: AOF, appendfsync
# always), its AOF, pid and log under WEIR_REDIS_RUN_DIR.
set -euo pipefail

SHARED_PORT="${WEIR_REDIS_SHARED_PORT:-6379}"
RUN_DIR="${WEIR_REDIS_RUN_DIR:-${WEIR_CACHE_DIR:-$HOME/.cache/weir}/redis-run}"
PID_FILE="$RUN_DIR/redis.pid"
PORT_FILE="$RUN_DIR/port"

say() { printf '[redis] %s\n' "$*" >&2; }
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# PING without redis-cli (bash /dev/tcp), so the check works before any package is installed.
pong() {
  local reply
  { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  read -r -t 2 reply <&3 || true
  exec 3<&- 3>&-
  [[ "$reply" == +PONG* ]]
}

start() {
  if pong "$SHARED_PORT"; then
    say "using the Redis on 127.0.0.1:$SHARED_PORT"
    echo "redis://127.0.0.1:$SHARED_PORT"
    return
  fi
  if running_pid >/dev/null && pong "$(cat "$PORT_FILE")"; then
    echo "redis://127.0.0.1:$(cat "$PORT_FILE")"
    return
  fi
  ensure_redis_server
  local port
  port="$(pick_port "${WEIR_REDIS_PORT:-16379}")"
  mkdir -p "$RUN_DIR"
  redis-server "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/redis-durability.conf" \
    --daemonize yes --bind 127.0.0.1 --port "$port" \
    --dir "$RUN_DIR" --pidfile "$PID_FILE" --logfile "$RUN_DIR/redis.log" >&2
  echo "$port" >"$PORT_FILE"
  for _ in $(seq 1 50); do
    if pong "$port"; then
      say "started on 127.0.0.1:$port"
      echo "redis://127.0.0.1:$port"
      return
    fi
    sleep 0.1
  done
  say "redis-server did not answer on $port; see $RUN_DIR/redis.log"
  exit 1
}

status() {
  if pong "$SHARED_PORT"; then echo "redis://127.0.0.1:$SHARED_PORT"; return; fi
  if running_pid >/dev/null && pong "$(cat "$PORT_FILE")"; then echo "redis://127.0.0.1:$(cat "$PORT_FILE")"; return; fi
  echo "stopped"
  exit 3
}

case "${1:-}" in
  start) start ;;
  stop) stop_recorded ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
