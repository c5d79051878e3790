#!/usr/bin/env bash
# A single-node Apache Kafka (KRaft: broker and controller in one JVM) for tests and local runs,
# without Docker: the broker's jars come from Maven Central into a cache, then `java -cp` runs it.
#
#   infra/scripts/kafka.sh start    prints the bootstrap address (host:port) on stdout once the broker answers
#   infra/scripts/kafka.sh stop     stops the broker this script started
#   infra/scripts/kafka.sh status   prints the address and exits 0 while it runs, else exits 3
#   infra/scripts/kafka.sh fetch    only downloads the jars
#   infra/scripts/kafka.sh format   only writes the config and formats a fresh data directory
#
# Settings (environment):
#   WEIR_KAFKA_VERSION      Kafka release on Maven Central (default 3.9.2: KRaft, and every protocol
#                           version kafkajs 2.2 speaks; 4.x dropped some of them)
#   WEIR_CACHE_DIR          download cache (default ~/.cache/weir); jars go to kafka-<version>/libs
#   WEIR_KAFKA_RUN_DIR      pid, log, config and data (default $WEIR_CACHE_DIR/kafka-run)
#   WEIR_KAFKA_PORT         client port (default 19092; a free one is taken when it is busy)
#   WEIR_KAFKA_CONTROLLER_PORT  controller port (default 19093, same rule)
#   WEIR_KAFKA_HEAP         JVM heap options (default -Xms256m -Xmx512m)
#   WEIR_KAFKA_START_TIMEOUT seconds to wait for the broker (default 120)
#   WEIR_KAFKA_CLUSTER_ID   KRaft cluster id (default a random one; tests pass one that begins with '-')
# Each start formats a fresh data directory: a test broker carries no state from an earlier run.
set -euo pipefail

VERSION="${WEIR_KAFKA_VERSION:-3.9.2}"
CACHE_DIR="${WEIR_CACHE_DIR:-$HOME/.cache/weir}"
LIBS="$CACHE_DIR/kafka-$VERSION/libs"
RUN_DIR="${WEIR_KAFKA_RUN_DIR:-$CACHE_DIR/kafka-run}"
PID_FILE="$RUN_DIR/kafka.pid"
ADDR_FILE="$RUN_DIR/address"
LOG_FILE="$RUN_DIR/kafka.log"
START_TIMEOUT="${WEIR_KAFKA_START_TIMEOUT:-120}"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAVA_OPTS=(-Djava.awt.headless=true "-Dlog4j.configuration=file:$SCRIPT_DIR/kafka/log4j.properties"
  -XX:+UseG1GC -XX:MaxGCPauseMillis=20)

say() { printf '[kafka] %s\n' "$*" >&2; }

# shellcheck source=lib.sh
source "$SCRIPT_DIR/lib.sh"

# Resolves org.apache.kafka:kafka_2.13 and its runtime closure with Maven (the local repository
# ~/.m2 caches across runs) and copies the jars into $LIBS, atomically: a half download is never used.
fetch() {
  if [[ -f "$LIBS/.complete" ]]; then return; fi
  local work
  work="$(mktemp -d "${TMPDIR:-/tmp}/weir-kafka-fetch.XXXXXX")"
  sed "s/@KAFKA_VERSION@/$VERSION/" "$SCRIPT_DIR/kafka/pom.xml" >"$work/pom.xml"
  say "fetching kafka_2.13:$VERSION and its dependencies from Maven Central"
  local started=$SECONDS
  maven -B -q -f "$work/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$work/libs" >"$work/mvn.log" 2>&1 \
    || { cat "$work/mvn.log" >&2; say "maven failed"; exit 1; }
  touch "$work/libs/.complete"
  mkdir -p "$(dirname "$LIBS")"
  rm -rf "$LIBS"
  mv "$work/libs" "$LIBS"
  rm -rf "$work"
  say "fetched $(find "$LIBS" -name '*.jar' | wc -l) jars in $((SECONDS - started))s"
}

write_config() {
  local port="$1" cport="$2" data="$3"
  cat >"$RUN_DIR/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$data
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
log.retention.hours=24
log.segment.bytes=67108864
delete.topic.enable=true
EOF
}

# A KRaft log directory must be formatted with a cluster id before the first start. The id is a
# random UUID in URL-safe base64, so it begins with '-' once in 64: it goes as `--cluster-id=<id>`,
# which argparse cannot take for an option of its own.
format() {
  local port="$1" cport="$2" data="$RUN_DIR/data"
  mkdir -p "$RUN_DIR"
  rm -rf "$data"
  write_config "$port" "$cport" "$data"
  local cluster_id="${WEIR_KAFKA_CLUSTER_ID:-$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')}"
  java "${JAVA_OPTS[@]}" -Xmx256m -cp "$LIBS/*" kafka.tools.StorageTool format \
    "--cluster-id=$cluster_id" -c "$RUN_DIR/server.properties" >"$RUN_DIR/format.log" 2>&1 \
    || { cat "$RUN_DIR/format.log" >&2; say "storage format failed"; exit 1; }
}

start() {
  local pid
  if pid="$(running_pid)"; then
    say "already running (pid $pid)"
    cat "$ADDR_FILE"
    return
  fi
  fetch
  local port cport
  port="$(pick_port "${WEIR_KAFKA_PORT:-19092}")"
  cport="$(pick_port "${WEIR_KAFKA_CONTROLLER_PORT:-19093}")"
  format "$port" "$cport"
  # shellcheck disable=SC2206 # the heap setting is a list of JVM flags
  local heap=(${WEIR_KAFKA_HEAP:--Xms256m -Xmx512m})

  local started=$SECONDS
  nohup java "${heap[@]}" "${JAVA_OPTS[@]}" -cp "$LIBS/*" kafka.Kafka "$RUN_DIR/server.properties" \
    >"$LOG_FILE" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$PID_FILE"
  echo "127.0.0.1:$port" >"$ADDR_FILE"
  say "started pid $pid on 127.0.0.1:$port (controller $cport), log $LOG_FILE"

  while ! port_busy "$port"; do
    if ! kill -0 "$pid" 2>/dev/null; then tail -n 40 "$LOG_FILE" >&2; say "broker exited during start"; exit 1; fi
    if ((SECONDS - started > START_TIMEOUT)); then tail -n 40 "$LOG_FILE" >&2; stop_recorded; say "port $port not open after ${START_TIMEOUT}s"; exit 1; fi
    sleep 0.3
  done
  # An open port is not yet a usable broker: ask for cluster metadata and create/delete a topic.
  java -Xmx128m -cp "$LIBS/*" "$SCRIPT_DIR/kafka/Ready.java" "127.0.0.1:$port" "$START_TIMEOUT" >&2 \
    || { tail -n 40 "$LOG_FILE" >&2; stop_recorded; say "broker did not answer metadata requests"; exit 1; }
  say "ready in $((SECONDS - started))s"
  echo "127.0.0.1:$port"
}

status() {
  local pid
  if pid="$(running_pid)"; then echo "running pid $pid at $(cat "$ADDR_FILE")"; else echo "stopped"; exit 3; fi
}

case "${1:-}" in
  start) start ;;
  stop) stop_recorded ;;
  status) status ;;
  fetch) fetch ;;
  format)
    if pid="$(running_pid)"; then say "running (pid $pid): stop it before formatting"; exit 1; fi
    fetch
    format "$(pick_port "${WEIR_KAFKA_PORT:-19092}")" "$(pick_port "${WEIR_KAFKA_CONTROLLER_PORT:-19093}")"
    ;;
  *) echo "usage: $0 start|stop|status|fetch" >&2; exit 2 ;;
esac
