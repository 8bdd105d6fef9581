package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestLogsNeverShowTheNodeProvidersKey: a node provider's key lives in ETH_RPC_URL's path, and
// every line about an unreachable node repeated the URL (go-ethereum's and net/http's errors);
// the logs show the node's host and "[redacted]" instead.
func TestLogsNeverShowTheNodeProvidersKey(t *testing.T) {
	t.Parallel()
	const key = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	node := fmt.Sprintf("127.0.0.1:%d", freePort(t)) // nothing listens there
	_, out, stop := startServeStoppable(t, map[string]string{"DEVCHAIN": "off", "ETH_RPC_URL": "http://" + node + "/v2/" + key,
		"CHAIN_ID": "8453", "PROCESSOR_API_KEY": "processor-key-" + key[:12]})
	wait.Until(t, "a line about the unreachable node", 30*time.Second, func() bool { return strings.Contains(out.String(), "chain node unreachable at start") })
	stop()
	logs := out.String()
	if strings.Contains(logs, key) || strings.Contains(logs, "processor-key-") {
		t.Fatalf("a secret is in the logs:\n%s", logs)
	}
	if !strings.Contains(logs, node+"[redacted]") {
		t.Fatalf("the node's host is not in the logs beside [redacted]:\n%s", logs)
	}
}

// TestRedactorSecrets: what set takes from the configuration, and the writer's replacements.
func TestRedactorSecrets(t *testing.T) {
	t.Parallel()
	s := &secretsOut{}
	s.set(config{DatabaseURL: "postgres://app:p%40ss%22word1@db:5432/payledger", JWTSecret: "short", CronSecret: `cron"secret<1>`,
		EthRPCURL: "https://base.example/v3/abcdef0123456789?x=1", OperatorKey: "0x" + strings.Repeat("ab", 32)})
	var b strings.Builder
	w := redactor{&b, s}
	line := `{"error":"p@ss\"word1 p%40ss%22word1 https://base.example/v3/abcdef0123456789?x=1 cron\"secret<1> short ` + strings.Repeat("ab", 32) + `"}`
	if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
		t.Fatalf("Write: %d, %v", n, err)
	}
	want := `{"error":"[redacted] [redacted] https://base.example[redacted] [redacted] short [redacted]"}`
	if b.String() != want {
		t.Fatalf("redacted:\n got %s\nwant %s", b.String(), want)
	}
}

// TestLogsNeverShowADatabasePasswordGivenInTheQuery: PostgreSQL's driver takes the password as a
// query parameter too (`?password=`, as libpq), and the redactor hid only a URL's user
// information: an operator command (or serve) in development, whose database did not answer,
// logged "nothing answers at <DATABASE_URL>" with the password in it.
func TestLogsNeverShowADatabasePasswordGivenInTheQuery(t *testing.T) {
	t.Parallel()
	const pw = "qp-hunter2-secret"
	// TEST-NET-1: nothing answers there, and it is not this machine.
	vars := env(map[string]string{"DATABASE_URL": "postgres://u@192.0.2.1:5432/x?sslmode=disable&password=" + pw + "%21",
		"DEV_DATA_DIR": t.TempDir()})
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"verify"}, vars, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "nothing answers at") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	if strings.Contains(out.String()+errOut.String(), pw) {
		t.Fatalf("the password is in the output:\n%s%s", out.String(), errOut.String())
	}

	s := &secretsOut{}
	s.set(config{DatabaseURL: "postgres://db/x?sslpassword=ssl-key-pass1&password=p%40ss%26word2"})
	var b strings.Builder
	line := `{"error":"ssl-key-pass1 p@ss&word2 p%40ss%26word2"}`
	if _, err := (redactor{&b, s}).Write([]byte(line)); err != nil {
		t.Fatal(err)
	}
	if want := `{"error":"[redacted] [redacted] [redacted]"}`; b.String() != want {
		t.Fatalf("redacted:\n got %s\nwant %s", b.String(), want)
	}
}
