#!/usr/bin/env bash
# A Redis Cluster of three masters (no replicas) on local ports, for tests and local runs.
#
#   infra/scripts/redis-cluster.sh start    prints the URL (redis+cluster://127.0.0.1:P1,...) as its last stdout line
#   infra/scripts/redis-cluster.sh stop     stops the three servers this script started
#   infra/scripts/redis-cluster.sh status   prints the URL and exits 0 while the cluster is ok, else exits 3
#
# Settings (environment):
#   WEIR_REDIS_CLUSTER_PORT     first port (default 17000); the masters take it and the next two.
#                               Redis Cluster also opens each port + 10000 for its bus.
#   WEIR_REDIS_CLUSTER_RUN_DIR  pid files, logs, nodes.conf and AOF (default $WEIR_CACHE_DIR/redis-cluster-run)
# Each start begins from empty data: a test cluster carries no state from an earlier run. The
# servers use redis-durability.conf, as infra/scripts/redis.sh does.
set -euo pipefail

FIRST_PORT="${WEIR_REDIS_CLUSTER_PORT:-17000}"
PORTS=("$FIRST_PORT" "$((FIRST_PORT + 1))" "$((FIRST_PORT + 2))")
RUN_DIR="${WEIR_REDIS_CLUSTER_RUN_DIR:-${WEIR_CACHE_DIR:-$HOME/.cache/weir}/redis-cluster-run}"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
URL="redis+cluster://$(printf '127.0.0.1:%s,' "${PORTS[@]}" | sed 's/,$//')"

say() { printf '[redis-cluster] %s\n' "$*" >&2; }
# shellcheck source=lib.sh
source "$SCRIPT_DIR/lib.sh"

cluster_ok() { redis-cli -p "${PORTS[0]}" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }

# lib.sh's helpers work on $PID_FILE: one per server.
for_each_server() {
  local port
  for port in "${PORTS[@]}"; do
    PID_FILE="$RUN_DIR/$port/redis.pid"
    "$@" "$port"
  done
}

start_server() {
  local port="$1" dir="$RUN_DIR/$1"
  if running_pid >/dev/null; then return; fi
  if port_busy "$port"; then say "port $port is busy (set WEIR_REDIS_CLUSTER_PORT)"; exit 1; fi
  rm -rf "$dir"
  mkdir -p "$dir"
  redis-server "$SCRIPT_DIR/redis-durability.conf" \
    --daemonize yes --bind 127.0.0.1 --port "$port" --cluster-enabled yes \
    --cluster-config-file "$dir/nodes.conf" --cluster-node-timeout 5000 \
    --dir "$dir" --pidfile "$PID_FILE" --logfile "$dir/redis.log" >&2
  for _ in $(seq 1 50); do
    if redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then return; fi
    sleep 0.1
  done
  say "redis-server did not answer on $port; see $dir/redis.log"
  exit 1
}

start() {
  if cluster_ok; then
    say "already running"
    echo "$URL"
    return
  fi
  ensure_redis_server
  for_each_server start_server
  # A server that already knows the others (a half-made earlier start) must not be joined again.
  if [[ "$(redis-cli -p "${PORTS[0]}" cluster info | grep -c '^cluster_known_nodes:3')" == 0 ]]; then
    # shellcheck disable=SC2046 # one argument per node
    redis-cli --cluster create $(printf '127.0.0.1:%s ' "${PORTS[@]}") --cluster-replicas 0 --cluster-yes >&2
  fi
  for _ in $(seq 1 100); do
    if cluster_ok; then
      say "ok on ports ${PORTS[*]}"
      echo "$URL"
      return
    fi
    sleep 0.2
  done
  say "cluster_state not ok after 20 s; logs under $RUN_DIR"
  exit 1
}

status() {
  if cluster_ok; then echo "$URL"; else echo "stopped"; exit 3; fi
}

stop_server() { stop_recorded; }

case "${1:-}" in
  start) start ;;
  stop) for_each_server stop_server ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
