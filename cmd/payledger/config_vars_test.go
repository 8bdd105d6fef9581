package main

import (
	"crypto/rand"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestUnknownVarsNameTyposAndOwnPrefixes: the variables set but not read that look meant for
// payledger are named (with what was meant, for a typo); other software's are not.
func TestUnknownVarsNameTyposAndOwnPrefixes(t *testing.T) {
	t.Parallel()
	read := newVarsRead(env(nil))
	if _, _, err := loadConfig(read.get, rand.Reader); err != nil {
		t.Fatal(err)
	}
	env := []string{"CHAIN_OPERATOR_KY=0123", "PAYLEDGER_FOO=1", "CHAIN_OPERATOR_PRIVATE_KEY=x", "PAYMENT_WINDOWS=1h",
		"DATABSE_URL=postgres://u:pw@h/db", "HTTP_ADR=:80",
		// not payledger's, or read by it
		"DATABASE_URL=postgres://h/db", "HTTP_PROXY=http://proxy", "HTTPS_PROXY=http://proxy", "OTEL_EXPORTER_OTLP_HEADERS=a=b",
		"DATABASE_HOST=db", "REDIS_PASSWORD=x", "PATH=/bin", "HOME=/root", "PAYLEDGER_SERVICE_HOST=10.0.0.1",
		"PAYLEDGER_PORT=tcp://10.0.0.1:80", "PAYLEDGER_PORT_8080_TCP_ADDR=10.0.0.1", "DEV_DATA_DIR=/tmp", "GOGC=100", "LOG_LEVEL=info"}
	got := unknownVars(env, read.names)
	want := []string{"CHAIN_OPERATOR_KY (meant CHAIN_OPERATOR_KEY?)", "CHAIN_OPERATOR_PRIVATE_KEY", "DATABSE_URL (meant DATABASE_URL?)",
		"HTTP_ADR (meant HTTP_ADDR?)", "PAYLEDGER_FOO", "PAYMENT_WINDOWS (meant PAYMENT_WINDOW?)"}
	if !slices.Equal(got, want) {
		t.Fatalf("unknown variables:\n got %q\nwant %q", got, want)
	}
}

// TestServeWarnsOfUnknownVariables: a typo in CHAIN_OPERATOR_KEY started serve with split
// distribution and subscriptions off and no word of the variable set; the start names it, and
// never its value.
func TestServeWarnsOfUnknownVariables(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := buildPayledger(t, dir)
	const secret = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	cmd := exec.Command(bin, "migrate")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DATABASE_URL="+pgtest.URL(t), "EMBEDDED_POSTGRES=off", "DEV_DATA_DIR="+dir,
		"CHAIN_OPERATOR_KY="+secret, "LOG_FORMAT=json")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "CHAIN_OPERATOR_KY (meant CHAIN_OPERATOR_KEY?)") || !strings.Contains(string(out), "does not read") {
		t.Fatalf("no warning of the unknown variable:\n%s", out)
	}
	if strings.Contains(string(out), secret) {
		t.Fatalf("the variable's value is in the output:\n%s", out)
	}

	// A configuration error says it too: the variable meant may be the one reported missing.
	cmd = exec.Command(bin, "migrate")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "APP_ENV=production", "DEV_DATA_DIR="+dir, "CHAIN_OPERATOR_KY="+secret)
	out, _ = cmd.CombinedOutput()
	if !strings.Contains(string(out), "JWT_SECRET is required") || !strings.Contains(string(out), "CHAIN_OPERATOR_KY (meant") || strings.Contains(string(out), secret) {
		t.Fatalf("the configuration error does not name the unknown variable (or shows its value):\n%s", out)
	}
}
