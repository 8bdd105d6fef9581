package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"
)

// privateCluster is a PostgreSQL cluster of the test's own (data folder and unix socket in a
// temporary folder, TCP on a free port of 127.0.0.1) that the test may crash and restart without
// disturbing the shared server. It runs as the postgres user when the test runs as root.
type privateCluster struct {
	pg   *embeddedPostgres
	opts string // the postmaster options, given again on each restart
	log  string // the server's log file
}

// startPrivateCluster initialises and starts a private cluster, and registers its immediate stop
// with t.Cleanup. It skips the test when PostgreSQL's server programs are not installed (or, as
// root, when there is no postgres user to run them as).
func startPrivateCluster(t *testing.T) *privateCluster {
	t.Helper()
	bin, err := findPostgresBin()
	if err != nil {
		t.Skipf("needs PostgreSQL's server programs (initdb, pg_ctl) for a private cluster: %v", err)
	}
	base := t.TempDir()
	pg := &embeddedPostgres{binDir: bin, dataDir: filepath.Join(base, "pg"), port: freePort(t), log: zerolog.Nop()}
	if os.Geteuid() == 0 {
		if pg.cred, err = unprivilegedUser(); err != nil {
			t.Skipf("a private cluster cannot run as root: %v", err)
		}
		// The postgres user must be able to pass through the test's temporary folders.
		for _, d := range []string{base, filepath.Dir(base)} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := &privateCluster{pg: pg, opts: fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s", pg.port, pg.dataDir),
		log: filepath.Join(pg.dataDir, "server.log")}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := pg.start(ctx); err != nil {
		t.Fatalf("start the private cluster: %v", err)
	}
	t.Cleanup(c.stopImmediate)
	return c
}

// URL is the address of database db in the cluster.
func (c *privateCluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.pg.port, db)
}

// restartImmediate crashes the server (pg_ctl restart -m immediate: no checkpoint, every
// connection cut) and waits until it accepts connections again after crash recovery.
func (c *privateCluster) restartImmediate(ctx context.Context) error {
	// -l: without it the new server would write to pg_ctl's output, which we wait on.
	return c.pg.run(ctx, "pg_ctl", "-D", c.pg.dataDir, "-o", c.opts, "-l", c.log, "-m", "immediate", "-w", "-t", "60", "restart")
}

// stop stops the server at once (pg_ctl stop -m immediate): connections are cut, and new ones
// refused until start.
func (c *privateCluster) stop(ctx context.Context) error {
	return c.pg.run(ctx, "pg_ctl", "-D", c.pg.dataDir, "-m", "immediate", "-w", "-t", "60", "stop")
}

// start starts the server stopped by stop and waits until it accepts connections.
func (c *privateCluster) start(ctx context.Context) error {
	return c.pg.run(ctx, "pg_ctl", "-D", c.pg.dataDir, "-o", c.opts, "-l", c.log, "-w", "-t", "60", "start")
}

// freeze stops every process of the server (SIGSTOP), postmaster first so that it starts no
// other: connections are still accepted by the kernel and nothing answers. resume continues them.
func (c *privateCluster) freeze() (resume func() error, frozen int, err error) {
	pidFile, err := os.ReadFile(filepath.Join(c.pg.dataDir, "postmaster.pid"))
	if err != nil {
		return nil, 0, err
	}
	postmaster, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(pidFile), "\n", 2)[0]))
	if err != nil {
		return nil, 0, fmt.Errorf("postmaster.pid: %w", err)
	}
	pids := []int{postmaster}
	if err := syscall.Kill(postmaster, syscall.SIGSTOP); err != nil {
		return nil, 0, err
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err == nil && strings.Contains(string(status), fmt.Sprintf("\nPPid:\t%d\n", postmaster)) {
			_ = syscall.Kill(pid, syscall.SIGSTOP)
			pids = append(pids, pid)
		}
	}
	return func() error {
		var first error
		for _, pid := range slices.Backward(pids) {
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil && first == nil && pid == postmaster {
				first = err
			}
		}
		return first
	}, len(pids), nil
}

func (c *privateCluster) stopImmediate() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = c.pg.run(ctx, "pg_ctl", "-D", c.pg.dataDir, "-m", "immediate", "-w", "stop")
}

// waitAnswers waits until the cluster accepts a connection to db.
func (c *privateCluster) waitAnswers(ctx context.Context, db string) error {
	for {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		conn, err := pgx.Connect(cctx, c.URL(db))
		cancel()
		if err == nil {
			return conn.Close(context.Background())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the private cluster does not answer: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
