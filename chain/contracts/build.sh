#!/usr/bin/env bash
# Rebuilds the committed contract artifacts: compiles the Solidity sources here with solcjs
# (npm solc) against OpenZeppelin Contracts, writes build/<Name>.abi and build/<Name>.bin, and
# generates the Go bindings (<name>.go, package contracts) with go-ethereum's abigen.
#
# Needs node/npm (the npm registry) and Go; `make test` needs neither solc nor this script, since
# everything it writes is committed. Run it from anywhere, or `go generate ./chain/contracts/`.
#
# SOLC_DEPS_DIR: a directory to install the npm packages into and keep (default: a temporary one,
# removed afterwards).
set -euo pipefail

SOLC_VERSION=0.8.24
OZ_VERSION=4.9.6
GETH_VERSION=v1.17.10
CONTRACTS=(PaymentSplit TestToken SpendPermissionManager Deposit DepositFactory HostileToken GasBurningSplit
	SlowReleasableSplit BurningReceiveSplit FakeReleasePayee)

cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin"
GO="${GO:-go}"

deps="${SOLC_DEPS_DIR:-}"
if [ -z "$deps" ]; then
	deps="$(mktemp -d)"
	trap 'rm -rf "$deps"' EXIT
fi
mkdir -p "$deps"
npm install --prefix "$deps" --no-audit --no-fund --loglevel=error \
	"solc@$SOLC_VERSION" "@openzeppelin/contracts@$OZ_VERSION" >/dev/null
solcjs="$deps/node_modules/.bin/solcjs"
echo "solcjs $("$solcjs" --version)"

out="$(mktemp -d)"
trap 'rm -rf "$out"; [ -n "${SOLC_DEPS_DIR:-}" ] || rm -rf "$deps"' EXIT
sources=()
for c in "${CONTRACTS[@]}"; do sources+=("$c.sol"); done
"$solcjs" --optimize --abi --bin --base-path . --include-path "$deps/node_modules" \
	--output-dir "$out" "${sources[@]}"

mkdir -p build
for c in "${CONTRACTS[@]}"; do
	cp "$out/${c}_sol_${c}.abi" "build/$c.abi"
	cp "$out/${c}_sol_${c}.bin" "build/$c.bin"
	lower="$(echo "$c" | tr '[:upper:]' '[:lower:]')"
	"$GO" run "github.com/ethereum/go-ethereum/cmd/abigen@$GETH_VERSION" \
		--abi "build/$c.abi" --bin "build/$c.bin" --pkg contracts --type "$c" --out "$lower.go"
	chmod 644 "$lower.go"
	echo "build/$c.abi build/$c.bin $lower.go"
done
