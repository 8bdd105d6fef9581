package readmodels

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unavailable reports an error that means the datastore could not be reached or is restarting
// (as opposed to it refusing a statement): the answer is then 503 or the degraded path, never a
// "not found" or a refusal.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	// A connection that could not be made ran nothing, whatever the server answered while
	// refusing it: too many clients (every instance reconnecting after a failover), not accepting
	// connections, starting up, or no such database or role. Checked before the statement's own
	// SQLSTATE below, which such a refusal carries too.
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// admin shutdown, crash shutdown, cannot connect now (starting up), connection exceptions,
		// and a write refused by a server that only reads (25006): a standby reached through a
		// proxy or an address that has not moved yet after a switchover, or a primary set
		// read-only. Nothing was written and the primary is elsewhere or coming back, so an order
		// is journaled like one whose server went away (the pool drops that connection:
		// cmd/payledger/dbfailover.go), not answered 500.
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "25006":
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08")
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || pgconn.Timeout(err) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.EPIPE)
}
