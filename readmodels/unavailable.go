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
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || pgconn.Timeout(err) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.EPIPE)
}
