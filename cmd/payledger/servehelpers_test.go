package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// startServe runs `payledger serve` with vars (plus a fresh database and port) until the test ends
// and returns its base URL.
func startServe(t *testing.T, vars map[string]string) (string, *syncBuffer) {
	t.Helper()
	base, out, stop := startServeStoppable(t, vars)
	t.Cleanup(stop)
	return base, out
}

// startServeStoppable is startServe with the stop in the caller's hands (idempotent).
func startServeStoppable(t *testing.T, vars map[string]string) (string, *syncBuffer, func()) {
	t.Helper()
	vars = maps.Clone(vars) // the caller may start another with the same map
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	if vars["DATABASE_URL"] == "" {
		vars["DATABASE_URL"] = pgtest.URL(t)
	}
	if vars["JOURNAL_PATH"] == "" {
		// Each serve holds its journal's lock: instances sharing the default path would refuse
		// to start. A test that restarts serve onto its journal sets JOURNAL_PATH itself.
		vars["JOURNAL_PATH"] = filepath.Join(t.TempDir(), "journal.jsonl")
	}
	vars["HTTP_ADDR"], vars["EMBEDDED_POSTGRES"] = addr, "off"
	vars["PUBLIC_BASE_URL"] = "http://" + addr
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	exit := make(chan int, 1)
	go func() { exit <- run(ctx, []string{"serve"}, env(vars), out, out) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case <-exit:
			case <-time.After(30 * time.Second):
				t.Error("serve did not stop")
			}
			if t.Failed() {
				t.Logf("serve log (tail):\n%s", tail(out.String(), 6000))
			}
		})
	}
	if err := awaitHealthz(http.DefaultClient, "http://"+addr, 60*time.Second); err != nil {
		stop()
		t.Fatalf("serve never answered: %v\n%s", err, out.String())
	}
	return "http://" + addr, out, stop
}

// awaitHealthz polls base/healthz until the service answers, or returns the last error once
// timeout has passed.
func awaitHealthz(client *http.Client, base string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		resp, err := client.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// createKey runs `payledger migrate` and `payledger keys create` on vars' database, as an operator
// does on a new server (keys never creates the database: stop 66), and returns the key, the last
// line of keys' output.
func createKey(t *testing.T, ctx context.Context, vars map[string]string, wallet, scopes, name string) string {
	t.Helper()
	var migrated, out, errOut syncBuffer
	if code := run(ctx, []string{"migrate"}, env(vars), &migrated, &errOut); code != 0 {
		t.Fatalf("migrate: exit %d: %s %s", code, migrated.String(), errOut.String())
	}
	if code := run(ctx, []string{"keys", "create", "--wallet", wallet, "--scopes", scopes, "--name", name}, env(vars), &out, &errOut); code != 0 {
		t.Fatalf("keys create: exit %d: %s %s", code, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lines[len(lines)-1]
}

// buildPayledger puts this command, built once for the package's tests (builtBinary), into dir
// for the tests that run it as its own process (to kill it), and returns the binary's path.
func buildPayledger(t *testing.T, dir string) string {
	t.Helper()
	built, err := builtBinary()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "payledger")
	if os.Link(built, bin) == nil {
		return bin
	}
	data, err := os.ReadFile(built) // another file system than the shared build
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// builtBinary builds this command once per test binary (a build takes seconds with a warm cache,
// minutes with a cold one). TestMain removes the directory.
var builtBinary = sync.OnceValues(func() (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = "/usr/local/go/bin/go"
	}
	dir, err := os.MkdirTemp("", "payledger-test-bin-")
	if err != nil {
		return "", err
	}
	builtDirs <- dir
	bin := filepath.Join(dir, "payledger")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build: %v %s", err, out)
	}
	return bin, nil
})

// builtDirs hands TestMain the directory of the shared build, if a test made it.
var builtDirs = make(chan string, 1)

func TestMain(m *testing.M) {
	flag.Parse()
	prebuilt := make(chan struct{})
	if run := flag.Lookup("test.run"); !testing.Short() && run != nil && run.Value.String() == "" {
		// A whole run includes the tests that run the binary: its build (minutes when the build
		// cache is cold) overlaps the tests before them instead of holding up the first one.
		go func() { defer close(prebuilt); _, _ = builtBinary() }()
	} else {
		close(prebuilt)
	}
	envDir := keepOffTheDevelopersEnvFile()
	code := m.Run()
	if envDir != "" {
		_ = os.RemoveAll(envDir)
	}
	<-prebuilt // no build left writing into the directory removed below
	select {
	case dir := <-builtDirs:
		_ = os.RemoveAll(dir)
	default:
	}
	os.Exit(code)
}

// keepOffTheDevelopersEnvFile points DEVCHAIN_ENV_FILE, unless the caller set one, at a file of
// this run's own directory (returned, "" when none was made): tests and the binaries they start
// with DEVCHAIN=auto write the development chain's variables there, and stopping it deletes the
// file, so `make test` beside a running `make run` overwrote, then removed, its env file and
// `devchain pay` in the developer's shell found no chain.
func keepOffTheDevelopersEnvFile() string {
	if os.Getenv("DEVCHAIN_ENV_FILE") != "" {
		return ""
	}
	dir, err := os.MkdirTemp("", "payledger-test-devchain-")
	if err != nil {
		return ""
	}
	_ = os.Setenv("DEVCHAIN_ENV_FILE", filepath.Join(dir, "devchain.env"))
	return dir
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
