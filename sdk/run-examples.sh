#!/usr/bin/env bash
# Runs the SDKs' README examples against the real payledger binary: builds it, starts `serve`
# (development settings, its own development chain, a fresh database), makes the dev merchant,
# then runs the Go example test (sdk/go) and the TypeScript one (sdk/typescript, Node's test
# runner). Needs PostgreSQL at PAYLEDGER_SDK_PG (default postgres://postgres@127.0.0.1:5432, trust auth),
# Go and Node 20+; `npm ci` runs here when sdk/typescript/node_modules is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
root=$PWD
work=$(mktemp -d)
pg=${PAYLEDGER_SDK_PG:-postgres://postgres@127.0.0.1:5432}
admin_url="$pg/postgres?sslmode=disable"
db="payledger_sdk_$(date +%s)_$$"
serve_pid=""

cleanup() {
  if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
  if command -v psql >/dev/null 2>&1; then psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "run-examples: building payledger"
go build -o "$work/payledger" ./cmd/payledger
port=$(( 20000 + RANDOM % 20000 ))
export PAYLEDGER_BIN="$work/payledger"
export PAYLEDGER_BASE_URL="http://127.0.0.1:$port"
export DATABASE_URL="$pg/$db?sslmode=disable"
export HTTP_ADDR="127.0.0.1:$port" PUBLIC_BASE_URL="$PAYLEDGER_BASE_URL" EMBEDDED_POSTGRES=off APP_ENV=development
export DEV_DATA_DIR="$work/data" JOURNAL_PATH="$work/data/journal.jsonl" DEVCHAIN_ENV_FILE="$work/devchain.env"

echo "run-examples: serve on $PAYLEDGER_BASE_URL (log: serve.log in the work folder)"
"$PAYLEDGER_BIN" serve >"$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 1 120); do
  curl -fs "$PAYLEDGER_BASE_URL/healthz" >/dev/null 2>&1 && break
  kill -0 "$serve_pid" 2>/dev/null || { echo "run-examples: serve exited"; tail -50 "$work/serve.log"; exit 1; }
  sleep 0.5
done
"$PAYLEDGER_BIN" dev merchant --base-url "$PAYLEDGER_BASE_URL" >"$work/dev-merchant.out" 2>&1 || { cat "$work/dev-merchant.out"; tail -50 "$work/serve.log"; exit 1; }
PAYLEDGER_API_KEY=$(sed -n 's/^PAYLEDGER_API_KEY=//p' "$DEV_DATA_DIR/dev-merchant.env")
export PAYLEDGER_API_KEY

status=0
echo "run-examples: Go (sdk/go)"
# Every test of the module: it is not part of the repository's ./... (its own go.mod), so a test
# a filter here left out would run nowhere.
(cd "$root/sdk/go" && go test -count=1 -v ./...) || status=1
echo "run-examples: TypeScript (sdk/typescript)"
if [ ! -d "$root/sdk/typescript/node_modules" ]; then (cd "$root/sdk/typescript" && npm ci --no-audit --no-fund); fi
(cd "$root/sdk/typescript" && node --test test/) || status=1
if [ "$status" != 0 ]; then echo "run-examples: serve log (tail)"; tail -80 "$work/serve.log"; fi
exit "$status"
