# Shared by the service scripts in this folder (source it after defining `say` and PID_FILE).
# Each script starts one background process, records its pid in $PID_FILE and stops only that pid.

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The wanted port when it is free, else one the kernel hands out.
pick_port() {
  local wanted="$1"
  if ! port_busy "$wanted"; then echo "$wanted"; return; fi
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# The recorded pid while that process lives.
running_pid() {
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# SIGTERM to the recorded pid, then SIGKILL when it is still there after 30 s.
stop_recorded() {
  local pid
  if ! pid="$(running_pid)"; then say "not running"; rm -f "$PID_FILE"; return; fi
  kill "$pid"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.3
  done
  if kill -0 "$pid" 2>/dev/null; then say "killing pid $pid"; kill -9 "$pid"; fi
  rm -f "$PID_FILE"
  say "stopped pid $pid"
}

# Maven 3.8 does not lock its local repository: scripts that run at the same time (CI starts Kafka
# and the schema registry together) take turns, so no artifact is downloaded twice at once.
maven() {
  command -v mvn >/dev/null || { echo "mvn not found: Apache Maven fetches the services' jars" >&2; return 1; }
  mkdir -p "$HOME/.m2"
  flock "$HOME/.m2/.weir-maven.lock" mvn "$@"
}

# Debian's redis-server (with redis-cli), installed when missing.
ensure_redis_server() {
  command -v redis-server >/dev/null && return
  say "installing Debian's redis-server"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >&2
}
