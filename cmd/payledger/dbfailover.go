package main

import (
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A DATABASE_URL may name several hosts (a Patroni cluster, DESIGN 10): the primary moves on a
// failover or a switchover, and the pool must stop using the old one promptly. pgx already
// closes a connection on a FATAL error (the old primary shutting down) and pings one that sat
// idle for a second before handing it out; these settings cover what it does not.
const (
	// poolHealthCheck: idle connections closed under the pool (the server went away) are dropped
	// within this, not pgx's default minute, so that a quiet instance does not keep them.
	poolHealthCheck = 2 * time.Second
	// tcpKeepAlive and tcpUserTimeout: a primary whose machine vanishes without closing its
	// connections (power loss, a partition) answers nothing at all; without these a connection
	// waits for the kernel's retransmissions (about 15 minutes) before it fails. With them, an
	// idle connection is probed after 5 s and any connection whose sent data stays unacknowledged
	// for 10 s (Patroni's ttl) is closed, so the pool reconnects to the new primary.
	tcpKeepAlive   = 5 * time.Second
	tcpUserTimeout = 10 * time.Second
)

// tuneForFailover applies the settings above to a pool's configuration.
func tuneForFailover(pc *pgxpool.Config) {
	pc.HealthCheckPeriod = poolHealthCheck
	dialer := &net.Dialer{Timeout: pc.ConnConfig.ConnectTimeout, KeepAlive: tcpKeepAlive, Control: setUserTimeout}
	pc.ConnConfig.DialFunc = dialer.DialContext
	fatalCloses := pc.ConnConfig.OnPgError
	pc.ConnConfig.OnPgError = func(c *pgconn.PgConn, e *pgconn.PgError) bool {
		// 25006 (read-only transaction): this connection reached a server that is a standby now
		// (behind a proxy or a virtual address that moved); keeping it would fail every write.
		if e.Code == "25006" {
			return false
		}
		return fatalCloses == nil || fatalCloses(c, e)
	}
}
