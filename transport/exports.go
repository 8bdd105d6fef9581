package transport

import (
	"cmp"
	"context"
	"encoding/csv"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// ExportSource streams a merchant's records for the CSV exports (readmodels.Exports).
type ExportSource interface {
	Receipts(ctx context.Context, merchant string, from, to time.Time, status string, row func([]string) error) error
	SplitTransactions(ctx context.Context, merchant string, from, to time.Time, row func([]string) error) error
}

var _ ExportSource = (*readmodels.Exports)(nil)

// Exports: the default window, the rows between flushes, and how many exports one merchant and
// one instance may run at once (each holds a connection of the exports' own pool while it
// streams), and how long one may last (DESIGN 10).
const (
	exportWindow               = 30 * 24 * time.Hour
	exportFlushEvery           = 1000
	exportsPerUser             = 2
	DefaultExportMaxConcurrent = readmodels.DefaultExportMaxConcurrent
	DefaultExportTimeout       = 5 * time.Minute
)

// exportBudget sets the exports' bounds from the configuration: at most ExportMaxConcurrent on
// the instance (the exports' pool's budget, which app/web passes; zero: DefaultExportMaxConcurrent) and exportsPerUser per merchant, each ended
// after ExportTimeout (zero: DefaultExportTimeout).
func (s *Server) exportBudget(cfg Config) {
	s.exportSlots.Max, s.exportSlots.Total = exportsPerUser, cmp.Or(cfg.ExportMaxConcurrent, DefaultExportMaxConcurrent)
	s.exportTimeout = cmp.Or(cfg.ExportTimeout, DefaultExportTimeout)
}

func (s *Server) exportRoutes() {
	read := Policy{Access: KeyOrSession, Scope: "receipts:read"}
	s.handle(http.MethodGet, "/api/exports/receipts.csv", read, s.exportReceipts)
	s.handle(http.MethodGet, "/api/exports/split-transactions.csv", read, s.exportSplits)
}

// exportWindowOf reads from and to (Unix ms). Without them the window is the last 30 days;
// given only to, the 30 days before it; given only from, up to now. "Now" is the end of the
// current millisecond: receipts keep their creation in whole milliseconds, and one created in
// the same millisecond as the export (or at its very start) belongs in it.
func (s *Server) exportWindowOf(c echo.Context) (time.Time, time.Time, error) {
	to, err := exportBound(c, "to", s.now().Truncate(time.Millisecond).Add(time.Millisecond))
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	from, err := exportBound(c, "from", to.Add(-exportWindow))
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	if !from.Before(to) {
		return time.Time{}, time.Time{}, InvalidInput("from must be before to")
	}
	return from, to, nil
}

// exportBound reads the query parameter name (Unix ms), def when it is absent.
func exportBound(c echo.Context, name string, def time.Time) (time.Time, error) {
	raw := c.QueryParam(name)
	if raw == "" {
		return def, nil
	}
	ms, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || ms < 0 || ms > 1e14 {
		return time.Time{}, InvalidInput(name + " must be Unix milliseconds")
	}
	return time.UnixMilli(ms), nil
}

func (s *Server) exportReceipts(c echo.Context) error {
	from, to, err := s.exportWindowOf(c)
	if err != nil {
		return err
	}
	status := c.QueryParam("status")
	if status != "" && !slices.Contains(receipt.StatusNames(), status) {
		return InvalidInput("status must be one of " + strings.Join(receipt.StatusNames(), ", "))
	}
	return s.streamCSV(c, "receipts", readmodels.ReceiptColumns, func(ctx context.Context, merchant string, row func([]string) error) error {
		return s.exports.Receipts(ctx, merchant, from, to, status, row)
	})
}

func (s *Server) exportSplits(c echo.Context) error {
	from, to, err := s.exportWindowOf(c)
	if err != nil {
		return err
	}
	return s.streamCSV(c, "split-transactions", readmodels.SplitColumns, func(ctx context.Context, merchant string, row func([]string) error) error {
		return s.exports.SplitTransactions(ctx, merchant, from, to, row)
	})
}

// streamCSV writes the header and then each row as the database yields it (RFC 4180: CRLF line
// ends, quoted fields where needed), flushing every exportFlushEvery rows. The answer begins with
// the first row (or the query's end): a query that fails before it gets the error envelope (503
// for an unavailable datastore), not a header-only file that reads as "no receipts". Once it has
// begun an error can only end the stream, and it aborts the connection (abortExport).
func (s *Server) streamCSV(c echo.Context, name string, header []string, rows func(context.Context, string, func([]string) error) error) error {
	merchant := merchantOf(c)
	if !s.exportSlots.Take(merchant) {
		return s.noSlot("Too many exports running (for this merchant or on this instance): retry when one has ended")
	}
	defer s.exportSlots.Give(merchant)
	// A large export outlives the server's 30 s timeouts, up to the export's own: a client that
	// reads too slowly to finish by then is cut off, its connection and slot given back.
	rc := http.NewResponseController(c.Response())
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(s.exportTimeout))
	ctx, stop := s.whileAuthorized(c) // a revoked key or an ended session ends its exports too
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, s.exportTimeout)
	defer cancel()
	out := &csvAnswer{c: c, name: name, header: header}
	err := rows(ctx, merchant, out.row)
	switch {
	case err != nil && out.w == nil:
		return err
	case err != nil:
		abortExport(c, err, out.n)
	case out.w == nil:
		out.begin() // no rows: the header alone
	}
	out.w.Flush()
	c.Response().Flush()
	return nil
}

// csvAnswer is an export's answer: begun (status, headers, header row) with its first row.
type csvAnswer struct {
	c      echo.Context
	name   string
	header []string
	w      *csv.Writer // nil until begun
	n      int         // rows written
}

func (a *csvAnswer) begin() {
	h := a.c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8; header=present")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="`+a.name+`.csv"`)
	a.c.Response().WriteHeader(http.StatusOK)
	a.w = csv.NewWriter(a.c.Response())
	a.w.UseCRLF = true
	_ = a.w.Write(a.header) // into the writer's buffer: an error shows at the next flush
}

func (a *csvAnswer) row(rec []string) error {
	if a.w == nil {
		a.begin()
	}
	defuseFormulas(rec)
	if err := a.w.Write(rec); err != nil {
		return err
	}
	if a.n++; a.n%exportFlushEvery == 0 {
		a.w.Flush()
		a.c.Response().Flush()
		return a.w.Error()
	}
	return nil
}

// abortExport ends an export that stopped before its last row (its credential refused, its
// timeout, the database cancelling its query) by aborting the connection: the client's transfer
// fails. Ending the body cleanly would hand it complete rows, each ending in CRLF, that read as
// the whole file, and a merchant's books would silently miss the rest.
func abortExport(c echo.Context, err error, rows int) {
	zerolog.Ctx(c.Request().Context()).Warn().Err(err).Int("rows", rows).Msg("export ended early: connection aborted")
	panic(http.ErrAbortHandler) // net/http closes the connection without ending the body
}

// defuseFormulas writes a leading ' before every cell that a spreadsheet would read as a formula
// (OWASP's rule for CSV injection): one that begins with =, +, -, @, a tab or a carriage return.
// Merchants open exports in spreadsheets, and customers choose order ids and labels. A formula
// character after a semicolon, a tab or a line feed (quotes between them aside) gets one too:
// Excel in a locale whose list separator is ';' splits a .csv at semicolons, and reads a quote
// that does not begin its cell, and so a line break, literally; LibreOffice may split at tabs.
func defuseFormulas(rec []string) {
	for i, v := range rec {
		if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
			v = "'" + v
		}
		rec[i] = defuseAfterSeparators(v)
	}
}

// defuseAfterSeparators writes a ' before each formula character that some spreadsheet's split
// makes the first of a cell: after ';', a tab or LF (a CRLF's too), with only quotes between.
func defuseAfterSeparators(v string) string {
	if !strings.ContainsAny(v, ";\t\n") || !strings.ContainsAny(v, "=+-@") {
		return v // nearly every cell: no copy
	}
	var b strings.Builder
	b.Grow(len(v) + 4)
	cellStart := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if cellStart && strings.IndexByte("=+-@", c) >= 0 {
			b.WriteByte('\'')
		}
		if c != '"' {
			cellStart = strings.IndexByte(";\t\n", c) >= 0
		}
		b.WriteByte(c)
	}
	return b.String()
}
