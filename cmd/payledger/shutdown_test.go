package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// startServeProcess runs the built binary's `payledger serve` with vars (plus a fresh database, port and
// journal) as its own process, and returns it, its base URL and its output; the test's end kills
// it if it still runs.
func startServeProcess(t *testing.T, vars map[string]string) (*exec.Cmd, string, *syncBuffer, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	bin := buildPayledger(t, dir)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	env := append(os.Environ(), "HTTP_ADDR="+addr, "EMBEDDED_POSTGRES=off", "JOURNAL_PATH="+filepath.Join(dir, "journal.jsonl"),
		"PUBLIC_BASE_URL=http://"+addr)
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	cmd := exec.Command(bin, "serve")
	out := &syncBuffer{}
	cmd.Env, cmd.Stdout, cmd.Stderr = env, out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	if err := awaitHealthz(http.DefaultClient, "http://"+addr, 60*time.Second); err != nil {
		t.Fatalf("serve never answered: %v\n%s", err, out.String())
	}
	return cmd, "http://" + addr, out, exited
}

// TestSecondSignalStopsAtOnce: the first SIGINT drains in-flight requests (up to 20 s); a second
// one stops the process at once. signal.NotifyContext kept catching the signals after the first,
// so an operator's second Ctrl-C did nothing while a slow client held the drain.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	vars := map[string]string{"DATABASE_URL": pgtest.URL(t), "SECRETS_KEY": strings.Repeat("ab", 32), "DEVCHAIN": "off"}
	key := createKey(t, context.Background(), vars, "0x"+strings.Repeat("ab", 20), "orders:create", "slow")
	cmd, base, out, exited := startServeProcess(t, vars)

	// A request in flight: its headers are read and its handler reads a body that comes slowly.
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/orders HTTP/1.1\r\nHost: payledger\r\nOcp-Apim-Subscription-Key: %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n", key)
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(line, "100 Continue") {
		t.Fatalf("the handler did not ask for the body: %q %v\n%s", line, err, out.String())
	}
	fmt.Fprint(conn, `{"items":`)

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "serve draining", 30*time.Second, func() bool { return strings.Contains(out.String(), "draining in-flight requests") })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve did not stop\n%s", out.String())
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("serve ended with %v, not by the second SIGINT\n%s", cmd.ProcessState, tail(out.String(), 3000))
	}
}
