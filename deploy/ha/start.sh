#!/usr/bin/env bash
# make ha: payledger on a Patroni-managed PostgreSQL cluster, on this machine's loopback:
#   etcd (one member) -> two PostgreSQL 15 nodes under Patroni (synchronous_mode) ->
#   two `payledger serve` instances (multi-host DATABASE_URL, target_session_attrs=read-write,
#   reads from the standby through DATABASE_REPLICA_URL) -> HAProxy on one port.
# Prints `patronictl list` and the URLs, then runs until Ctrl-C, which stops everything.
# State (data folders, logs; serve/: the development secrets both instances share, their
# journals; kept apart because serve makes its data folder 0700) lives in HA_DIR
# (default .data/ha) and survives a restart; `rm -rf .data/ha` starts afresh.
#
# Ports (override in the environment): the local PostgreSQL's 5432 and `make run`'s 8080/8545
# are left alone.
set -euo pipefail
# Job control: each process below gets its own process group, so Ctrl-C reaches this script
# only, and stop_all stops them in order (HAProxy, the instances, Patroni, etcd last).
set -m
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"

HA_DIR=$(realpath -m "${HA_DIR:-.data/ha}")
HA_HTTP_PORT=${HA_HTTP_PORT:-18080}     # HAProxy: the service's one public port
HA_STATS_PORT=${HA_STATS_PORT:-18404}   # HAProxy's status page
SERVE_PORTS=(${SERVE1_PORT:-18081} ${SERVE2_PORT:-18082})
PG_PORTS=(${PG1_PORT:-15431} ${PG2_PORT:-15432})
PATRONI_PORTS=(${PATRONI1_PORT:-18008} ${PATRONI2_PORT:-18009})
ETCD_PORT=${ETCD_PORT:-12379}
ETCD_PEER_PORT=${ETCD_PEER_PORT:-12380}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

pids=()
stop_all() {
  trap - INT TERM EXIT
  echo
  echo "ha: stopping"
  # Reverse order: the proxy, the instances (they drain), then Patroni (it stops PostgreSQL
  # cleanly on SIGTERM), then etcd.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || true
    wait "${pids[i]}" 2>/dev/null || true
  done
  echo "ha: stopped (state kept in $HA_DIR)"
}
trap 'stop_all; exit 0' INT TERM
trap stop_all EXIT

# ensure_packages installs Debian's patroni, etcd-server and haproxy when missing, as .ci/run does.
ensure_packages() {
  local missing=()
  command -v patroni >/dev/null || missing+=(patroni)
  command -v etcd >/dev/null || missing+=(etcd-server)
  command -v haproxy >/dev/null || missing+=(haproxy)
  [ -x "$PG_BIN/postgres" ] || missing+=(postgresql-15)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "ha: missing ${missing[*]}; install them (sudo apt-get install ${missing[*]}) or run as root" >&2
    exit 1
  fi
  echo "ha: installing Debian's ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# AS_POSTGRES runs a command as the postgres user when we are root: PostgreSQL refuses root.
# setpriv execs the command itself (no process in between), so that $! is the command's pid and
# it gets our signals.
AS_POSTGRES=()
[ "$(id -u)" = 0 ] && AS_POSTGRES=(setpriv --reuid=postgres --regid=postgres --init-groups --)

# wait_for waits up to $1 seconds until the rest of the line succeeds.
wait_for() {
  local secs=$1
  shift
  for _ in $(seq 1 $((secs * 4))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  echo "ha: gave up waiting for: $*" >&2
  return 1
}

ensure_packages
mkdir -p "$HA_DIR/logs"
echo "ha: building payledger"
go build -o "$HA_DIR/payledger" ./cmd/payledger

echo "ha: etcd on 127.0.0.1:$ETCD_PORT"
etcd --name ha-etcd --data-dir "$HA_DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "ha-etcd=http://127.0.0.1:$ETCD_PEER_PORT" >"$HA_DIR/logs/etcd.log" 2>&1 &
pids+=($!)
wait_for 30 curl -fsS "http://127.0.0.1:$ETCD_PORT/health"

# Patroni's environment for node $1 (1-based); patronictl takes the same.
node_env() {
  local n=$1 i=$(($1 - 1))
  echo PATRONI_NAME="pg$n" \
    PATRONI_RESTAPI_LISTEN="127.0.0.1:${PATRONI_PORTS[i]}" PATRONI_RESTAPI_CONNECT_ADDRESS="127.0.0.1:${PATRONI_PORTS[i]}" \
    PATRONI_POSTGRESQL_LISTEN="127.0.0.1:${PG_PORTS[i]}" PATRONI_POSTGRESQL_CONNECT_ADDRESS="127.0.0.1:${PG_PORTS[i]}" \
    PATRONI_POSTGRESQL_DATA_DIR="$HA_DIR/pg$n/data" PATRONI_POSTGRESQL_PGPASS="$HA_DIR/pg$n/pgpass" \
    PATRONI_POSTGRESQL_BIN_DIR="$PG_BIN" PATRONI_ETCD3_HOSTS="127.0.0.1:$ETCD_PORT"
}

for n in 1 2; do
  mkdir -p "$HA_DIR/pg$n"
  # As root the postgres user must pass through HA_DIR and its parent: add the traverse bit only
  # (a parent such as /tmp keeps its own mode, sticky bit included).
  [ "$(id -u)" = 0 ] && chown postgres: "$HA_DIR/pg$n" && chmod a+x "$HA_DIR" "$(dirname "$HA_DIR")"
  echo "ha: Patroni node pg$n (PostgreSQL on 127.0.0.1:${PG_PORTS[n - 1]}, REST on ${PATRONI_PORTS[n - 1]})"
  # shellcheck disable=SC2046 # node_env's words are meant to split
  "${AS_POSTGRES[@]}" env $(node_env $n) patroni deploy/ha/patroni.yml >"$HA_DIR/logs/patroni-pg$n.log" 2>&1 &
  pids+=($!)
  if [ $n = 1 ]; then
    wait_for 90 curl -fsS "http://127.0.0.1:${PATRONI_PORTS[0]}/primary" ||
      wait_for 30 curl -fsS "http://127.0.0.1:${PATRONI_PORTS[1]}/primary"
  fi
done
echo "ha: waiting for a synchronous standby"
sync_ready() {
  curl -fsS "http://127.0.0.1:${PATRONI_PORTS[0]}/sync" || curl -fsS "http://127.0.0.1:${PATRONI_PORTS[1]}/sync"
}
wait_for 120 sync_ready

hosts="127.0.0.1:${PG_PORTS[0]},127.0.0.1:${PG_PORTS[1]}"
export DATABASE_URL="postgres://postgres@$hosts/payledger?sslmode=disable&target_session_attrs=read-write"
export DATABASE_REPLICA_URL="postgres://postgres@$hosts/payledger?sslmode=disable&target_session_attrs=prefer-standby"
export EMBEDDED_POSTGRES=off DEVCHAIN=off DEV_DATA_DIR="$HA_DIR/serve" PUBLIC_BASE_URL="http://127.0.0.1:$HA_HTTP_PORT"
export TRUSTED_PROXIES=127.0.0.1/32
for n in 1 2; do
  port=${SERVE_PORTS[n - 1]}
  echo "ha: payledger serve #$n on 127.0.0.1:$port"
  HTTP_ADDR="127.0.0.1:$port" JOURNAL_PATH="$HA_DIR/serve/journal-$n.jsonl" \
    "$HA_DIR/payledger" serve >"$HA_DIR/logs/serve$n.log" 2>&1 &
  pids+=($!)
  # One at a time: the first applies the migrations and writes the shared development secrets.
  wait_for 90 curl -fsS "http://127.0.0.1:$port/healthz"
done

echo "ha: HAProxy on 127.0.0.1:$HA_HTTP_PORT"
HA_HTTP_BIND="127.0.0.1:$HA_HTTP_PORT" HA_STATS_BIND="127.0.0.1:$HA_STATS_PORT" \
  SERVE1_ADDR="127.0.0.1:${SERVE_PORTS[0]}" SERVE2_ADDR="127.0.0.1:${SERVE_PORTS[1]}" \
  haproxy -db -f deploy/ha/haproxy.cfg >"$HA_DIR/logs/haproxy.log" 2>&1 &
pids+=($!)
wait_for 15 curl -fsS "http://127.0.0.1:$HA_HTTP_PORT/healthz"

PATRONI_ETCD3_HOSTS=127.0.0.1:$ETCD_PORT patronictl -c deploy/ha/patroni.yml list
cat <<MSG

payledger (through HAProxy):  http://127.0.0.1:$HA_HTTP_PORT   (dashboard: /dashboard)
the instances:                http://127.0.0.1:${SERVE_PORTS[0]}  http://127.0.0.1:${SERVE_PORTS[1]}
HAProxy's status page:        http://127.0.0.1:$HA_STATS_PORT
DATABASE_URL:                 $DATABASE_URL
patronictl:                   PATRONI_ETCD3_HOSTS=127.0.0.1:$ETCD_PORT patronictl -c deploy/ha/patroni.yml list
logs:                         $HA_DIR/logs/
Ctrl-C stops everything.
MSG

# Run until Ctrl-C or until a process ends by itself (then stop the rest).
wait -n "${pids[@]}" || true
echo "ha: a process ended by itself; see $HA_DIR/logs/" >&2
exit 1
