package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/payledger/payledger/internal/procstat"
)

// What the measured phases cost besides time: CPU from /proc (PostgreSQL, the service, this load
// generator, the whole machine), the service's peak resident memory, and its CPU profiles.

// profile fetches a CPU profile of the service over most of a phase into loadbench-<name>.pprof
// when LOADBENCH_PPROF_ADDR is set (the service then serves pprof there) and name is not empty;
// the channel closes when it is written.
func profile(name string, phase time.Duration) <-chan struct{} {
	done := make(chan struct{})
	addr := os.Getenv("LOADBENCH_PPROF_ADDR")
	if addr == "" || name == "" {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		secs := int((phase - 2*time.Second).Seconds())
		resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, max(secs, 1)))
		if err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		_ = os.WriteFile("loadbench-"+name+".pprof", b, 0o644)
	}()
	return done
}

// cpuUse is CPU time consumed, split by who consumed it. postgres holds each PostgreSQL
// process's time separately, because backends come and go between two readings. steal is the
// time the hypervisor ran something else while this machine had work (/proc/stat's steal): a
// virtual machine's neighbours, which move every figure of a phase and are no one's cost here.
type cpuUse struct {
	postgres                   map[string]time.Duration
	serve, client, busy, steal time.Duration
}

// since is the CPU used between b and c. A PostgreSQL process that exited in between (a closed
// connection's backend) is not counted; one that started is counted whole.
func (c cpuUse) since(b cpuUse) cpuTotals {
	var pg time.Duration
	for pid, t := range c.postgres {
		pg += t - b.postgres[pid]
	}
	return cpuTotals{postgres: pg, serve: c.serve - b.serve, client: c.client - b.client, busy: c.busy - b.busy, steal: c.steal - b.steal}
}

type cpuTotals struct{ postgres, serve, client, busy, steal time.Duration }

// cpuNow reads user+system CPU time from /proc: PostgreSQL's processes that work for the
// service (its database's backends and their server's background processes, not other
// databases' backends or other servers, which on a shared machine belong to other work), the
// service, this process, and the whole machine's non-idle time. Linux only; zero elsewhere.
func cpuNow(servePid int) cpuUse {
	c := cpuUse{postgres: map[string]time.Duration{}}
	c.serve = readStat(fmt.Sprintf("/proc/%d/stat", servePid)).cpu
	c.client = readStat("/proc/self/stat").cpu
	db := serviceDatabase(servePid)
	var procs []procStat
	servers := map[int]bool{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		p := readStat(d)
		if p.name != "postgres" {
			continue
		}
		p.db, p.backend = titleDatabase(strings.TrimSuffix(d, "stat") + "cmdline")
		if db == "" || (p.backend && p.db == db) {
			servers[p.ppid] = true
		}
		procs = append(procs, p)
	}
	for _, p := range procs {
		if db == "" || (p.backend && p.db == db) || (!p.backend && servers[p.ppid]) {
			c.postgres[p.path] = p.cpu
		}
	}
	c.busy, c.steal = procstat.Machine()
	return c
}

const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux

type procStat struct {
	path, name, db string
	ppid           int
	backend        bool
	cpu            time.Duration
}

// readStat reads a process's name, parent and user+system CPU from its /proc stat file.
func readStat(path string) procStat {
	p := procStat{path: path}
	b, err := os.ReadFile(path)
	if err != nil {
		return p
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return p
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 13 {
		return p
	}
	var u, k int64
	fmt.Sscan(f[1], &p.ppid)
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &k)
	p.name, p.cpu = s[open+1:end], time.Duration(u+k)*tick
	return p
}

// serviceDatabase is the database name in the service's DATABASE_URL ("" when unreadable: then
// every PostgreSQL process counts).
func serviceDatabase(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return ""
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(kv, "DATABASE_URL="); ok {
			if u, err := url.Parse(v); err == nil {
				return strings.TrimPrefix(u.Path, "/")
			}
		}
	}
	return ""
}

// titleDatabase reads a PostgreSQL process's title: a backend's is "postgres: [<cluster>:]
// <user> <database> <client> <state>" (Debian names the cluster, "15/main:"); a background
// process's ("postgres: 15/main: walwriter") names no database.
func titleDatabase(path string) (db string, backend bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	f := strings.Fields(strings.ReplaceAll(string(b), "\x00", " "))
	if len(f) == 0 || f[0] != "postgres:" {
		return "", false
	}
	f = f[1:]
	if len(f) > 0 && strings.HasSuffix(f[0], ":") {
		f = f[1:]
	}
	if len(f) >= 3 && (strings.HasSuffix(f[2], ")") || f[2] == "[local]") {
		return f[1], true
	}
	return "", false
}

// peakRSS reads the process's peak resident set (VmHWM) in KiB.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%d", &kb)
			return kb
		}
	}
	return 0
}
