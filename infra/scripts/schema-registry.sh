#!/usr/bin/env bash
# A Confluent-compatible schema registry for tests and local runs, without Docker: Apicurio Registry
# (in-memory H2 storage) built from Maven Central jars into a cache, then run with `java -jar`.
#
#   infra/scripts/schema-registry.sh start    prints the URL to use as SCHEMA_REGISTRY_URL on stdout once it answers
#   infra/scripts/schema-registry.sh stop     stops the registry this script started
#   infra/scripts/schema-registry.sh status   prints the URL and exits 0 while it runs, else exits 3
#   infra/scripts/schema-registry.sh fetch    only builds the registry into the cache
#
# The URL is the Confluent API of Apicurio: http://127.0.0.1:PORT/apis/ccompat/v7
#
# Settings (environment):
#   WEIR_CACHE_DIR                 download cache (default ~/.cache/weir); the build goes to apicurio-registry-2.4.2
#   WEIR_SCHEMA_REGISTRY_RUN_DIR   pid, log and URL (default $WEIR_CACHE_DIR/schema-registry-run)
#   WEIR_SCHEMA_REGISTRY_PORT      HTTP port (default 18081; a free one is taken when it is busy)
#   WEIR_SCHEMA_REGISTRY_HEAP      JVM heap options (default -Xms64m -Xmx256m)
#   WEIR_SCHEMA_REGISTRY_START_TIMEOUT  seconds to wait for it to answer (default 120)
# Storage is in memory: every start begins with no subjects.
set -euo pipefail

VERSION="2.4.2"
CACHE_DIR="${WEIR_CACHE_DIR:-$HOME/.cache/weir}"
APP_DIR="$CACHE_DIR/apicurio-registry-$VERSION"
RUN_DIR="${WEIR_SCHEMA_REGISTRY_RUN_DIR:-$CACHE_DIR/schema-registry-run}"
PID_FILE="$RUN_DIR/registry.pid"
URL_FILE="$RUN_DIR/url"
LOG_FILE="$RUN_DIR/registry.log"
START_TIMEOUT="${WEIR_SCHEMA_REGISTRY_START_TIMEOUT:-120}"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

say() { printf '[schema-registry] %s\n' "$*" >&2; }

# shellcheck source=lib.sh
source "$SCRIPT_DIR/lib.sh"

# Central has Apicurio's application jar but no runnable build: the Quarkus Maven plugin builds one
# (runner jar + lib/) from schema-registry/pom.xml and application.properties. The result moves into $APP_DIR in one step, so a
# half build is never used. Cold: about 1-2 minutes of downloads (~130 MB); later starts reuse it.
fetch() {
  if [[ -f "$APP_DIR/.complete" ]]; then return; fi
  local work
  work="$(mktemp -d "${TMPDIR:-/tmp}/weir-schema-registry-build.XXXXXX")"
  cp "$SCRIPT_DIR/schema-registry/pom.xml" "$work/pom.xml"
  mkdir -p "$work/src/main/resources"
  cp "$SCRIPT_DIR/schema-registry/application.properties" "$work/src/main/resources/"
  say "building Apicurio Registry $VERSION from Maven Central"
  local started=$SECONDS
  # The parent pom's checks (checkstyle, enforcer) are for Apicurio's own sources, not this recipe.
  maven -B -s "$SCRIPT_DIR/schema-registry/settings.xml" -f "$work/pom.xml" package \
    -DskipTests -Dcheckstyle.skip -Denforcer.skip -Dmaven.source.skip -Dmaven.javadoc.skip \
    >"$work/mvn.log" 2>&1 \
    || { tail -n 60 "$work/mvn.log" >&2; say "maven failed (full log: $work/mvn.log)"; exit 1; }
  mkdir -p "$work/app"
  mv "$work"/target/*-runner.jar "$work/app/registry-runner.jar"
  mv "$work/target/lib" "$work/app/lib"
  touch "$work/app/.complete"
  mkdir -p "$(dirname "$APP_DIR")"
  rm -rf "$APP_DIR"
  mv "$work/app" "$APP_DIR"
  rm -rf "$work"
  say "built in $((SECONDS - started))s into $APP_DIR"
}

# Ready = the Confluent API answers a subject listing (the H2 schema is created before HTTP opens).
answers() { curl -fsS -m 2 -o /dev/null "$1/subjects" 2>/dev/null; }

start() {
  local pid
  if pid="$(running_pid)"; then
    say "already running (pid $pid)"
    cat "$URL_FILE"
    return
  fi
  command -v curl >/dev/null || { say "curl not found (needed for the readiness check)"; exit 1; }
  fetch
  mkdir -p "$RUN_DIR"
  local port url
  port="$(pick_port "${WEIR_SCHEMA_REGISTRY_PORT:-18081}")"
  url="http://127.0.0.1:$port/apis/ccompat/v7"
  # shellcheck disable=SC2206 # the heap setting is a list of JVM flags
  local heap=(${WEIR_SCHEMA_REGISTRY_HEAP:--Xms64m -Xmx256m})
  local started=$SECONDS
  nohup java "${heap[@]}" -Djava.awt.headless=true -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dquarkus.profile=prod -Dquarkus.http.host=127.0.0.1 "-Dquarkus.http.port=$port" \
    -Dquarkus.log.level=INFO -Dquarkus.log.console.json=false \
    -jar "$APP_DIR/registry-runner.jar" >"$LOG_FILE" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$PID_FILE"
  echo "$url" >"$URL_FILE"
  say "started pid $pid on 127.0.0.1:$port, log $LOG_FILE"

  while ! answers "$url"; do
    if ! kill -0 "$pid" 2>/dev/null; then tail -n 40 "$LOG_FILE" >&2; rm -f "$PID_FILE"; say "registry exited during start"; exit 1; fi
    if ((SECONDS - started > START_TIMEOUT)); then tail -n 40 "$LOG_FILE" >&2; stop; say "no answer on $url after ${START_TIMEOUT}s"; exit 1; fi
    sleep 0.5
  done
  say "ready in $((SECONDS - started))s"
  echo "$url"
}

stop() { stop_recorded; }

status() {
  local pid
  if pid="$(running_pid)"; then echo "running pid $pid at $(cat "$URL_FILE")"; else echo "stopped"; exit 3; fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  fetch) fetch ;;
  *) echo "usage: $0 start|stop|status|fetch" >&2; exit 2 ;;
esac
