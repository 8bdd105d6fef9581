package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConnectionURLsAreCheckedAtStart: a PostgreSQL URL the driver cannot use, and an OTLP
// endpoint that is not an http(s) URL, stop the start with a line naming the variable, and no
// line repeats a password. A typo such as sslmode=disabled was found only when connecting
// (development then took the server for one that does not answer and started a private
// cluster), and OTEL_EXPORTER_OTLP_ENDPOINT=127.0.0.1:4318 started with traces sent to the
// exporter's default address while serve logged them exported.
func TestConnectionURLsAreCheckedAtStart(t *testing.T) {
	t.Parallel()
	const pw = "hunter2-secret-pw"
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"DATABASE_URL": "postgres://u:" + pw + "@127.0.0.1:5432/x?sslmode=disabled"}, "DATABASE_URL is not a usable PostgreSQL URL: failed to configure TLS"},
		{map[string]string{"DATABASE_URL": "postgres://u@127.0.0.1:5432/x?password=" + pw + "&connect_timeout=soon"}, "DATABASE_URL is not a usable PostgreSQL URL: invalid connect_timeout"},
		{map[string]string{"DATABASE_URL": "postgres://u:" + pw + "@127.0.0.1:99999/x"}, "DATABASE_URL is not a usable PostgreSQL URL: invalid port"},
		{map[string]string{"DATABASE_REPLICA_URL": "postgres://u:" + pw + "@replica/x?sslmode=bogus"}, "DATABASE_REPLICA_URL is not a usable PostgreSQL URL"},
		{map[string]string{"DATABASE_REPLICA_URL": "mysql://u:" + pw + "@replica/x"}, "DATABASE_REPLICA_URL must be a postgres:// URL"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "127.0.0.1:4318"}, "OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector"}, "OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL"},
	} {
		_, _, err := loadConfig(env(tc.env), rand.Reader)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), pw) {
			t.Errorf("%v: %v; want %q and no password", tc.env, err, tc.want)
		}
	}
	for _, ok := range []map[string]string{
		{"DATABASE_URL": "postgres://u:" + pw + "@h1:5432,h2:5433/x?sslmode=require&target_session_attrs=read-write"},
		{"DATABASE_URL": "postgres:///payledger?host=/var/run/postgresql"},
		{"DATABASE_REPLICA_URL": "postgresql://u@r1,r2/x?target_session_attrs=prefer-standby", "OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example:4318/"},
	} {
		if _, _, err := loadConfig(env(ok), rand.Reader); err != nil {
			t.Errorf("%v refused: %v", ok, err)
		}
	}
	// Through the command: exit 2 before anything is opened, the variable named on stderr.
	var out, errOut bytes.Buffer
	vars := env(map[string]string{"DATABASE_URL": "postgres://u:" + pw + "@127.0.0.1:1/x?sslmode=disabled", "EMBEDDED_POSTGRES": "off", "DEV_DATA_DIR": t.TempDir()})
	if code := run(context.Background(), []string{"verify"}, vars, &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "DATABASE_URL is not a usable") || strings.Contains(out.String()+errOut.String(), pw) {
		t.Errorf("verify: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// TestListenAddressesAreCheckedAtStart: serve opens METRICS_ADDR and PPROF_ADDR in the
// background and runs on when they fail, so METRICS_ADDR=9090 (no colon) started a service whose
// /metrics was on no listener. A listen address that net.Listen cannot take stops the start.
func TestListenAddressesAreCheckedAtStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, v string }{
		{"METRICS_ADDR", "9090"}, {"METRICS_ADDR", "127.0.0.1:99999"}, {"PPROF_ADDR", "localhost"},
		{"HTTP_ADDR", "8080"}, {"HTTP_ADDR", ":-1"}, {"METRICS_ADDR", "127.0.0.1:"},
	} {
		_, _, err := loadConfig(env(map[string]string{tc.name: tc.v}), rand.Reader)
		if err == nil || !strings.Contains(err.Error(), tc.name+" must be host:port") {
			t.Errorf("%s=%q: %v", tc.name, tc.v, err)
		}
	}
	ok := map[string]string{"HTTP_ADDR": ":0", "METRICS_ADDR": "127.0.0.1:9090", "PPROF_ADDR": "[::1]:6060"}
	if _, _, err := loadConfig(env(ok), rand.Reader); err != nil {
		t.Errorf("%v refused: %v", ok, err)
	}
}

// TestZeroAddressesAreRefusedAtStart: the zero address (a template's placeholder) is no platform
// recipient, deposit factory or spend-permission manager. As PLATFORM_RECIPIENT every merchant's
// default split was refused ("recipients[1].address is the zero address", a recipient the
// merchant never named); as DEPOSIT_FACTORY receipts silently got no deposit address while serve
// logged the factory ready.
func TestZeroAddressesAreRefusedAtStart(t *testing.T) {
	t.Parallel()
	zero := "0x" + strings.Repeat("0", 40)
	for _, name := range []string{"PLATFORM_RECIPIENT", "DEPOSIT_FACTORY", "SPEND_PERMISSION_MANAGER"} {
		_, _, err := loadConfig(env(map[string]string{name: zero}), rand.Reader)
		if err == nil || !strings.Contains(err.Error(), name+" must be a 0x-prefixed 40-hex-character address other than the zero address") {
			t.Errorf("%s=%s: %v", name, zero, err)
		}
	}
	one := "0x" + strings.Repeat("0", 39) + "1"
	if _, _, err := loadConfig(env(map[string]string{"PLATFORM_RECIPIENT": one, "DEPOSIT_FACTORY": one, "SPEND_PERMISSION_MANAGER": one}), rand.Reader); err != nil {
		t.Errorf("non-zero addresses refused: %v", err)
	}
}

// TestBadValueInDevSecretsFileNamesTheFile: a development secret read from dev-secrets.env that
// is wrong stops the start naming the file it came from, not only the variable, which the
// operator would look for in the environment and not find; the value is not repeated.
func TestBadValueInDevSecretsFileNamesTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const bad = "not-hex-but-secret-ish"
	if err := os.WriteFile(filepath.Join(dir, devSecretsFile), []byte("SECRETS_KEY="+bad+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	vars := env(map[string]string{"DEV_DATA_DIR": dir, "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none", "EMBEDDED_POSTGRES": "off"})
	code := run(context.Background(), []string{"verify"}, vars, &out, &errOut)
	msg := errOut.String()
	if code != 2 || !strings.Contains(msg, "SECRETS_KEY must be 64 hex") || !strings.Contains(msg, filepath.Join(dir, devSecretsFile)) ||
		strings.Contains(out.String()+msg, bad) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), msg)
	}
}
