package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// What the measured phases cost besides time: CPU from /proc (PostgreSQL, the service, this load
// generator, the whole machine), the service's peak resident memory, and its CPU profiles.

// profile fetches a CPU profile of the service over most of a phase into loadbench-<name>.pprof
// when LOADBENCH_PPROF_ADDR is set (the service then serves pprof there); the channel closes when
// it is written.
func profile(name string, phase time.Duration) <-chan struct{} {
	done := make(chan struct{})
	addr := os.Getenv("LOADBENCH_PPROF_ADDR")
	if addr == "" {
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
// process's time separately, because backends come and go between two readings.
type cpuUse struct {
	postgres            map[string]time.Duration
	serve, client, busy time.Duration
}

// since is the CPU used between b and c. A PostgreSQL process that exited in between (a closed
// connection's backend) is not counted; one that started is counted whole.
func (c cpuUse) since(b cpuUse) cpuTotals {
	var pg time.Duration
	for pid, t := range c.postgres {
		pg += t - b.postgres[pid]
	}
	return cpuTotals{postgres: pg, serve: c.serve - b.serve, client: c.client - b.client, busy: c.busy - b.busy}
}

type cpuTotals struct{ postgres, serve, client, busy time.Duration }

// cpuNow reads user+system CPU time from /proc: every process named postgres, the service,
// this process, and the whole machine's non-idle time. Linux only; zero elsewhere.
func cpuNow(servePid int) cpuUse {
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	procTicks := func(path string) (string, time.Duration) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", 0
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			return "", 0
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 13 {
			return "", 0
		}
		var u, k int64
		fmt.Sscan(f[11], &u)
		fmt.Sscan(f[12], &k)
		return s[open+1 : end], time.Duration(u+k) * tick
	}
	c := cpuUse{postgres: map[string]time.Duration{}}
	_, c.serve = procTicks(fmt.Sprintf("/proc/%d/stat", servePid))
	_, c.client = procTicks("/proc/self/stat")
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		if name, t := procTicks(d); name == "postgres" {
			c.postgres[d] = t
		}
	}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
		for i, v := range f[1:] {
			var n int64
			fmt.Sscan(v, &n)
			if i != 3 && i != 4 { // idle, iowait
				c.busy += time.Duration(n) * tick
			}
		}
	}
	return c
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
