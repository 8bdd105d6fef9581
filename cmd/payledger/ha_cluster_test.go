package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// haCluster is deploy/ha's cluster started by a test on free loopback ports: one etcd member,
// two PostgreSQL 15 nodes under Patroni (deploy/ha/patroni.yml, synchronous_mode), two serve
// instances on a multi-host DATABASE_URL and HAProxy (deploy/ha/haproxy.cfg) in front.
type haCluster struct {
	t        *testing.T
	dir      string
	bin      string // the payledger binary
	pgBin    string
	patroni  string // the node configuration, a copy the postgres user can read
	haproxy  string
	etcdPort int
	pgPorts  [2]int
	apiPorts [2]int // Patroni's REST API
	nodes    [2]*exec.Cmd
	serves   [2]*exec.Cmd
	addrs    [2]string // the serve instances
	proxy    string    // HAProxy's address
	cred     *syscall.Credential
	serveEnv []string
}

// haPrograms skips the test when the cluster's programs are missing, saying which.
func haPrograms(t *testing.T) string {
	t.Helper()
	var missing []string
	for _, p := range []string{"patroni", "patronictl", "etcd", "haproxy"} {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	pgBin := "/usr/lib/postgresql/15/bin"
	if _, err := os.Stat(filepath.Join(pgBin, "postgres")); err != nil {
		missing = append(missing, pgBin+"/postgres")
	}
	if len(missing) > 0 {
		t.Skipf("the cluster test needs Debian's patroni, etcd-server, haproxy and postgresql-15 (.ci/run installs them); missing: %s", strings.Join(missing, ", "))
	}
	return pgBin
}

// startHACluster starts everything and registers its teardown.
func startHACluster(t *testing.T, bin string, extraEnv ...string) *haCluster {
	t.Helper()
	c := &haCluster{t: t, dir: t.TempDir(), bin: bin, pgBin: haPrograms(t), etcdPort: freePort(t)}
	if os.Geteuid() == 0 {
		cred, err := unprivilegedUser()
		if err != nil {
			t.Skipf("Patroni's PostgreSQL cannot run as root: %v", err)
		}
		c.cred = cred
		for _, d := range []string{c.dir, filepath.Dir(c.dir)} { // the postgres user passes through
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, name := range []string{"patroni.yml", "haproxy.cfg"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "ha", name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(c.dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		*[]*string{&c.patroni, &c.haproxy}[i] = p
	}
	peer := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	c.start(t, "etcd", nil, nil, "etcd", "--name", "ha-etcd", "--data-dir", filepath.Join(c.dir, "etcd"),
		"--listen-client-urls", c.etcdURL(), "--advertise-client-urls", c.etcdURL(),
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "ha-etcd="+peer)
	waitUntil(t, "etcd", 30*time.Second, func() bool { return httpOK(c.etcdURL() + "/health") })
	for i := range 2 {
		c.pgPorts[i], c.apiPorts[i] = freePort(t), freePort(t)
		if err := os.MkdirAll(c.nodeDir(i), 0o700); err != nil {
			t.Fatal(err)
		}
		if c.cred != nil {
			if err := os.Chown(c.nodeDir(i), int(c.cred.Uid), int(c.cred.Gid)); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.startNode(0)
	waitUntil(t, "pg1 to lead", 90*time.Second, func() bool { return c.role(0) == "primary" })
	c.startNode(1)
	waitUntil(t, "pg2 to be the synchronous standby", 120*time.Second, func() bool { return c.role(1) == "sync" })

	hosts := fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", c.pgPorts[0], c.pgPorts[1])
	c.serveEnv = append(os.Environ(), "EMBEDDED_POSTGRES=off", "DEVCHAIN=off",
		"DATABASE_URL=postgres://postgres@"+hosts+"/payledger?sslmode=disable&target_session_attrs=read-write",
		"JWT_SECRET="+strings.Repeat("j", 40), "CRON_SECRET="+strings.Repeat("c", 40), "SECRETS_KEY="+strings.Repeat("ef", 32),
		"PROCESSOR_WEBHOOK_SECRET="+haProcessorSecret, "PLATFORM_RECIPIENT=0x"+strings.Repeat("b", 40),
		"RATE_LIMIT_PER_MINUTE=10000000", "RATE_LIMIT_PUBLIC_PER_MINUTE=10000000", "TRUSTED_PROXIES=127.0.0.1/32")
	c.serveEnv = append(c.serveEnv, extraEnv...)
	return c
}

const haProcessorSecret = "ha-test-processor-secret-0123456789abcdef"

func (c *haCluster) etcdURL() string { return fmt.Sprintf("http://127.0.0.1:%d", c.etcdPort) }

func (c *haCluster) nodeDir(i int) string { return filepath.Join(c.dir, fmt.Sprintf("pg%d", i+1)) }

// databaseURL is what the instances use; db names the database.
func (c *haCluster) databaseURL() string {
	for _, kv := range c.serveEnv {
		if v, ok := strings.CutPrefix(kv, "DATABASE_URL="); ok {
			return v
		}
	}
	return ""
}

// start runs a program of the cluster with its output in dir/<name>.log, in its own process
// group, and kills the group when the test ends.
func (c *haCluster) start(t *testing.T, name string, env []string, cred *syscall.Credential, prog string, args ...string) *exec.Cmd {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(c.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait(); _ = f.Close() })
	return cmd
}

// startNode starts node i's Patroni (as the postgres user when root).
func (c *haCluster) startNode(i int) {
	n := i + 1
	env := append(os.Environ(), fmt.Sprintf("PATRONI_NAME=pg%d", n),
		fmt.Sprintf("PATRONI_RESTAPI_LISTEN=127.0.0.1:%d", c.apiPorts[i]), fmt.Sprintf("PATRONI_RESTAPI_CONNECT_ADDRESS=127.0.0.1:%d", c.apiPorts[i]),
		fmt.Sprintf("PATRONI_POSTGRESQL_LISTEN=127.0.0.1:%d", c.pgPorts[i]), fmt.Sprintf("PATRONI_POSTGRESQL_CONNECT_ADDRESS=127.0.0.1:%d", c.pgPorts[i]),
		"PATRONI_POSTGRESQL_DATA_DIR="+filepath.Join(c.nodeDir(i), "data"), "PATRONI_POSTGRESQL_PGPASS="+filepath.Join(c.nodeDir(i), "pgpass"),
		"PATRONI_POSTGRESQL_BIN_DIR="+c.pgBin, "PATRONI_ETCD3_HOSTS="+strings.TrimPrefix(c.etcdURL(), "http://"),
		"HOME="+c.nodeDir(i))
	// Patroni starts the postmaster in a process group of its own, which killing Patroni's group
	// leaves running (writing WAL into the test's directory while it is removed): stop it after
	// Patroni (cleanups run last first).
	c.t.Cleanup(func() { c.killPostgres(i) })
	c.nodes[i] = c.start(c.t, fmt.Sprintf("patroni-pg%d", n), env, c.cred, "patroni", c.patroni)
}

// role is node i's role as its Patroni REST API tells it: primary, sync (the synchronous
// standby), replica, or "" when it does not answer.
func (c *haCluster) role(i int) string {
	base := fmt.Sprintf("http://127.0.0.1:%d", c.apiPorts[i])
	switch {
	case httpOK(base + "/primary"):
		return "primary"
	case httpOK(base + "/sync"):
		return "sync"
	case httpOK(base + "/replica"):
		return "replica"
	}
	return ""
}

// primary is the index of the node that leads, or -1.
func (c *haCluster) primary() int {
	for i := range 2 {
		if c.role(i) == "primary" {
			return i
		}
	}
	return -1
}

// killNode SIGKILLs node i's Patroni and its PostgreSQL (the postmaster and every backend), as
// the loss of its machine would.
func (c *haCluster) killNode(i int) error {
	pid, err := c.postmaster(i)
	if err != nil {
		return err
	}
	_ = syscall.Kill(-c.nodes[i].Process.Pid, syscall.SIGKILL) // Patroni
	_ = c.nodes[i].Wait()
	killPostmaster(pid)
	return nil
}

// postmaster is the pid of node i's PostgreSQL, from its postmaster.pid.
func (c *haCluster) postmaster(i int) (int, error) {
	b, err := os.ReadFile(filepath.Join(c.nodeDir(i), "data", "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("read pg%d's postmaster.pid: %w", i+1, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		return 0, fmt.Errorf("pg%d's postmaster.pid: %w", i+1, err)
	}
	return pid, nil
}

// killPostmaster SIGKILLs a postmaster and every backend: Patroni starts it as a group leader.
func killPostmaster(pid int) []int {
	children := childrenOf(pid)
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for _, p := range children {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	return append(children, pid)
}

// killPostgres stops node i's PostgreSQL at the end of the test, if it runs, and waits until
// none of its processes is left (a zombie no longer writes), at most 30 s.
func (c *haCluster) killPostgres(i int) {
	pid, err := c.postmaster(i)
	if err != nil {
		return // never started, or stopped cleanly (the file is removed then)
	}
	if comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm")); err != nil || !strings.HasPrefix(string(comm), "postgres") {
		return // gone (a node killed and not restarted leaves its file): its pid may be another's now
	}
	left := killPostmaster(pid)
	gone := func() bool {
		left = slices.DeleteFunc(left, func(p int) bool { return !running(p) })
		return len(left) == 0
	}
	if err := waitCond(context.Background(), 30*time.Second, gone); err != nil {
		c.t.Logf("pg%d: processes %v still running after SIGKILL", i+1, left)
	}
}

// running says whether process pid exists and is not a zombie.
func running(pid int) bool {
	fields := procStat(strconv.Itoa(pid))
	return len(fields) > 0 && fields[0] != "Z"
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if fields := procStat(e.Name()); len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// procStat is the fields of /proc/<pid>/stat after the command (state, ppid, ...); nil when the
// process is gone. The command may hold spaces, so the fields start after its closing paren.
func procStat(pid string) []string {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// patronictl runs patronictl against the cluster.
func (c *haCluster) patronictl(args ...string) (string, error) {
	cmd := exec.Command("patronictl", append([]string{"-c", c.patroni}, args...)...)
	cmd.Env = append(os.Environ(), "PATRONI_ETCD3_HOSTS="+strings.TrimPrefix(c.etcdURL(), "http://"), "HOME="+c.dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// startServe starts serve instance i on its port.
func (c *haCluster) startServe(i int) {
	if c.addrs[i] == "" {
		c.addrs[i] = fmt.Sprintf("127.0.0.1:%d", freePort(c.t))
	}
	env := append(slices.Clip(c.serveEnv), "HTTP_ADDR="+c.addrs[i], "JOURNAL_PATH="+filepath.Join(c.dir, fmt.Sprintf("journal-%d.jsonl", i+1)),
		"DEV_DATA_DIR="+filepath.Join(c.dir, "data"))
	c.serves[i] = c.start(c.t, fmt.Sprintf("serve%d", i+1), env, nil, c.bin, "serve")
	if err := awaitHealthz(http.DefaultClient, "http://"+c.addrs[i], 90*time.Second); err != nil {
		c.t.Fatalf("serve %d did not start: %v", i+1, err)
	}
}

// killServe SIGKILLs serve instance i.
func (c *haCluster) killServe(i int) {
	_ = syscall.Kill(-c.serves[i].Process.Pid, syscall.SIGKILL)
	_ = c.serves[i].Wait()
}

// startProxy starts HAProxy in front of both instances.
func (c *haCluster) startProxy() {
	c.proxy = fmt.Sprintf("127.0.0.1:%d", freePort(c.t))
	env := append(os.Environ(), "HA_HTTP_BIND="+c.proxy, fmt.Sprintf("HA_STATS_BIND=127.0.0.1:%d", freePort(c.t)),
		"SERVE1_ADDR="+c.addrs[0], "SERVE2_ADDR="+c.addrs[1])
	c.start(c.t, "haproxy", env, nil, "haproxy", "-db", "-f", c.haproxy)
	waitUntil(c.t, "HAProxy", 30*time.Second, func() bool { return httpOK("http://" + c.proxy + "/healthz") })
}

// logs is the tail of every log of the cluster, for a failing test.
func (c *haCluster) logs() string {
	var b strings.Builder
	for _, name := range []string{"patroni-pg1", "patroni-pg2", "haproxy"} {
		out, _ := os.ReadFile(filepath.Join(c.dir, name+".log"))
		fmt.Fprintf(&b, "--- %s:\n%s\n", name, tail(string(out), 3000))
	}
	for _, name := range []string{"serve1", "serve2"} {
		fmt.Fprintf(&b, "--- %s:\n%s\n", name, lastProblems(filepath.Join(c.dir, name+".log"), 30))
	}
	return b.String()
}

func httpOK(u string) bool {
	client := http.Client{Timeout: time.Second}
	resp, err := client.Get(u)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// waitUntil polls cond every 100 ms until it holds, or fails the test after timeout.
func waitUntil(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	if err := waitCond(context.Background(), timeout, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func waitCond(ctx context.Context, timeout time.Duration, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("not within %v", timeout)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}
