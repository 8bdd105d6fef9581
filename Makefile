GO ?= go
export PATH := $(PATH):/usr/local/go/bin

.PHONY: run ha test test-slow fuzz bench lint migrate build screenshots sdk sdk-examples

## run: the service on :8080 against DATABASE_URL (a private cluster under .data/ if none answers)
run:
	$(GO) run ./cmd/payledger serve

## ha: on loopback, etcd, two Patroni-managed PostgreSQL 15 nodes (synchronous standby), two serve instances and HAProxy on :18080 (deploy/ha/); Ctrl-C stops all
ha:
	bash deploy/ha/start.sh

# SLOW_TESTS seed big volumes or run load (they skip under `go test -short` too): `make test`
# leaves them out and `make test-slow` runs them (CI runs both; `make bench` runs them too). One
# list for both, so a test left out of one is run by the other.
SLOW_TESTS := TestReceiptsExportStreams100k \
	TestDeposit10000OpenAddresses TestDepositContractETHAmong10000OpenInFiveRequests \
	TestAcknowledgedOrdersSurvivePostgresRestarts TestAcknowledgedOrdersSurviveAPostgresStop \
	TestAcknowledgedOrdersSurviveAHungPostgres TestHAClusterSurvivesFaults \
	TestAcceptedRequestsSurviveServeKillAndStop
empty :=
space := $(empty) $(empty)
SLOW_RE := ^($(subst $(space),|,$(strip $(SLOW_TESTS))))$$

## test: every test but SLOW_TESTS, with the race detector, against the local PostgreSQL
test:
	$(GO) test -race -count=1 -p 4 -parallel 4 -timeout 30m -skip '$(SLOW_RE)' ./...

## test-slow: the tests that seed big volumes or run load (SLOW_TESTS), with the race detector
test-slow:
	$(GO) test -race -count=1 -timeout 60m -run '$(SLOW_RE)' ./...

## fuzz: each Go fuzz target of transport/ for FUZZTIME executions; found cases stay in transport/testdata/fuzz/
# A count, not a duration: Go 1.26's coordinator can report its own -fuzztime deadline as a
# failure ("context deadline exceeded", golang/go#75804, fixed in Go 1.27); a count has no deadline.
FUZZTIME ?= 10000x
FUZZ_TARGETS := FuzzDecodeRequest FuzzJSONRoutes
fuzz:
	@for t in $(FUZZ_TARGETS); do echo "fuzz: $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime=$(FUZZTIME) ./transport/ || exit 1; done

# AB_REF is the revision `make bench` measures the order path against, in alternating rounds and
# in interleaved bursts (issue 38's same-run reference); it must be in this clone's history.
AB_REF ?= 1b1329e

## bench: Go benchmarks of the event store, then the HTTP load run and its A/B against AB_REF (figures: docs/benchmarks.md), then test-slow
bench:
	$(GO) test -run "^$$" -bench . -benchtime=5s -timeout 60m ./eventstore/postgres/ | tee bench.out
	$(GO) test -run "^$$" -bench WebhookDelivery -benchtime=1x -timeout 30m ./transport/ | tee -a bench.out
	$(GO) test -run "^$$" -bench ExportReceipts100k -benchtime=3x -timeout 20m ./transport/ | tee -a bench.out
	$(GO) test -run "^$$" -bench CronCharge1000 -benchtime=1x -timeout 20m ./settlement/ | tee -a bench.out
	$(GO) test -run "^$$" -bench 'DepositRoundTrips|Deposit5000InOneBlock' -benchtime=1x -timeout 20m ./settlement/ | tee -a bench.out
	$(GO) test -run "^$$" -bench DepositSweep -benchtime=1x -timeout 20m ./chain/contracts/ | tee -a bench.out
	$(GO) run ./cmd/loadbench -duration 30s | tee -a bench.out
	$(GO) run ./cmd/loadbench -against $(AB_REF) -rounds 2 -duration 15s | tee -a bench.out
	$(GO) run ./cmd/loadbench -against $(AB_REF) -pairs 20 -duration 5s | tee -a bench.out
	$(MAKE) --no-print-directory test-slow | tee -a bench.out

## lint: gofmt and go vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## migrate: create the database if missing and apply migrations
migrate:
	$(GO) run ./cmd/payledger migrate

build:
	$(GO) build -o bin/payledger ./cmd/payledger

## screenshots: the payment page (desktop and mobile, before and after a wallet payment, an underpaid one) and the merchant dashboard (list, a paid receipt, settings; desktop and 375 px; a receipt paid in two transfers) in chromium to docs/img/
screenshots:
	PAYLEDGER_SCREENSHOTS=$(CURDIR)/docs/img $(GO) test -count=1 -run '^(TestPaymentPageInBrowser|TestDashboardInBrowser)$$' -timeout 10m ./cmd/payledger/

## sdk: regenerate the client libraries from docs/openapi.yaml's developer routes: sdk/openapi.json, sdk/go (oapi-codegen) and sdk/typescript (openapi-typescript, then tsc); offline once sdk/typescript has run npm ci
OAPI_CODEGEN := github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2
sdk:
	$(GO) run ./sdk/devapi -o sdk/openapi.json
	cd sdk/go && $(GO) run $(OAPI_CODEGEN) -config oapi-codegen.yaml ../openapi.json
	cd sdk/typescript && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run --silent generate

## sdk-examples: each SDK's README example against the real binary (serve with a development chain and a fresh database)
sdk-examples:
	bash sdk/run-examples.sh
