package main

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
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

// serverKeepAlive is the same seen from the server, set on each new session: a connection of an
// instance whose machine vanished (power loss, a partition, a frozen VM) in the middle of a
// transaction keeps its session, its row locks and the oldest open transaction (below which
// every projector of every instance reads), until the server's keepalive ends it: 7200 s by
// default, so nothing was projected for two hours. Such a session waits idle for its client's
// next command, which is when keepalive probes run. Not tcp_user_timeout: Linux applies it to a
// peer's zero window too, and a backend streaming an export to an instance that reads it at its
// slow client's pace would be cut after it. SET, not startup parameters, which PgBouncer refuses;
// a Unix socket session ignores them.
var serverKeepAlive = fmt.Sprintf(`SET tcp_keepalives_idle = %d; SET tcp_keepalives_interval = %d; SET tcp_keepalives_count = 3`,
	int(tcpKeepAlive/time.Second), int(tcpKeepAlive/time.Second))

// tuneForFailover applies the settings above to a pool's configuration (after its AfterConnect,
// which it keeps).
func tuneForFailover(pc *pgxpool.Config) {
	then := pc.AfterConnect
	pc.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, serverKeepAlive); err != nil {
			return fmt.Errorf("set the server's keepalive on a new connection: %w", err)
		}
		if then == nil {
			return nil
		}
		return then(ctx, conn)
	}
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
