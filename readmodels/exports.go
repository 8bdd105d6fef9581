package readmodels

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/money"
)

// Exports streams a merchant's receipts and split transactions as CSV records, one row at a
// time from the database cursor: an export holds one row in memory, whatever its size, and one
// connection for as long as its client takes to read it.
type Exports struct {
	base, pool *pgxpool.Pool
	ctx        context.Context // the pools' lifetime
	maxConns   int

	mu     sync.Mutex
	routed map[*pgxpool.Pool]*pgxpool.Pool // a pool a request's reads were routed to -> the exports' own on its server
}

// DefaultExportMaxConcurrent is the exports' connection budget when none is configured
// (EXPORT_MAX_CONCURRENT's default).
const DefaultExportMaxConcurrent = 4

// MaxConns is the exports' connection budget: at most this many run at once.
func (e *Exports) MaxConns() int { return int(e.pool.Config().MaxConns) }

// OpenExports returns the exports on a pool of their own of at most maxConns connections, to
// the database base is connected to (DESIGN 10): a slow reader holds its export's connection
// for as long as it reads, and slow readers must never take the connections the API needs.
// The pool opens connections as exports need them, lets idle ones go after a minute, and
// closes when ctx ends.
func OpenExports(ctx context.Context, base *pgxpool.Pool, maxConns int) (*Exports, error) {
	if maxConns < 1 {
		return nil, fmt.Errorf("exports: the connection budget must be at least 1, got %d", maxConns)
	}
	pool, err := openExportPool(ctx, base, maxConns)
	if err != nil {
		return nil, err
	}
	return &Exports{base: base, pool: pool, ctx: ctx, maxConns: maxConns, routed: map[*pgxpool.Pool]*pgxpool.Pool{}}, nil
}

// openExportPool opens a pool of at most maxConns connections to the server of like, with its
// settings, closed when ctx ends.
func openExportPool(ctx context.Context, like *pgxpool.Pool, maxConns int) (*pgxpool.Pool, error) {
	cfg := like.Config().Copy()
	cfg.MaxConns, cfg.MinConns = int32(maxConns), 0
	cfg.MaxConnIdleTime = time.Minute
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "payledger-exports"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("exports: open their pool: %w", err)
	}
	context.AfterFunc(ctx, pool.Close)
	return pool, nil
}

// poolOf is the pool an export on ctx reads from: the exports' own, on the server the request's
// reads were routed to (ReadPool: a replica, or the primary). The routed pool itself is the
// API's, which a slow reader would hold for minutes; a replica's own exports pool is opened the
// first time an export is routed there. The instance's export slots bound the connections of
// all of them together.
func (e *Exports) poolOf(ctx context.Context) (*pgxpool.Pool, error) {
	routed := ReadPool(ctx, e.base)
	if routed == e.base {
		return e.pool, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.routed[routed]; ok {
		return p, nil
	}
	if err := e.ctx.Err(); err != nil {
		return nil, fmt.Errorf("exports: closed: %w", err)
	}
	p, err := openExportPool(e.ctx, routed, e.maxConns)
	if err != nil {
		return nil, err
	}
	e.routed[routed] = p
	return p, nil
}

// ReceiptColumns is the header row of the receipts export (DESIGN 9).
var ReceiptColumns = []string{"receiptId", "createdAt", "status", "currency", "subtotal", "tax", "fee", "total", "token",
	"amountReceived", "transactionHash", "buyerWallet", "transactionId", "paidAt", "refunded",
	"refundedExcess"}

// SplitColumns is the header row of the split transactions export.
var SplitColumns = []string{"receiptId", "distributedAt", "currency", "total", "fee", "token", "transactionHash"}

// ISOTime is how exports write times: ISO 8601 in UTC with milliseconds.
const ISOTime = "2006-01-02T15:04:05.000Z"

func isoMillis(ms *int64) string {
	if ms == nil {
		return ""
	}
	return time.UnixMilli(*ms).UTC().Format(ISOTime)
}

func decimal(cents *int64) string {
	if cents == nil {
		return ""
	}
	return money.Cents(*cents).String()
}

// firstCredit is, for a receipts row r without a payment, the first transfer seen at its deposit
// address and not dropped (receipt.State.FirstCredit): the status read shows its hash, sender and
// token until a payment is recorded (readmodels.ReceiptPayloadOf), and so does the export, beside
// the amount received it brought.
const firstCredit = `SELECT c->>'transactionHash' AS hash, c->>'sender' AS sender, c->>'token' AS token
	FROM jsonb_array_elements(CASE WHEN r.state->'payment' IS NULL AND jsonb_typeof(r.state->'credits') = 'array'
		THEN r.state->'credits' END) WITH ORDINALITY AS x(c, n)
	WHERE NOT coalesce((c->>'dropped')::boolean, false) ORDER BY n LIMIT 1`

// orderRefunded is a receipts row's refunded column: what the status read shows as refundedUsd
// (receipt.State.OrderRefundedCents), the order's processed refunds. A paid receipt's refunds of
// its excess (stop 70) and of funds returned before its payment (stop 69) are not the order's, as
// billing does not count them; a receipt without a payment shows its funds' refunds up to the
// total. The export summed every refund, so a paid receipt whose overpayment alone was given back
// read as refunded in whole.
const orderRefunded = `CASE WHEN r.state->'payment' IS NULL THEN least((r.state->>'refundedCents')::bigint, r.total_cents)
		ELSE greatest(0, (r.state->>'refundedCents')::bigint - coalesce((r.state->>'fundsRefundedCents')::bigint, 0)
			- coalesce((r.state->>'excessRefundedCents')::bigint, 0)) END`

// excessRefunded is a receipts row's refundedExcess column (stop 72, the last, so that readers
// by position keep working): what the status read shows as refundedExcessUsd
// (receipt.State.RefundedExcessCents). A paid receipt's processed refunds of its excess, at most
// its refunds less those of funds returned before its payment; a receipt without a payment, its
// funds' refunds beyond the total (refunded shows them up to it). With refunded and the refunds
// of early funds it makes every processed refund (the processor's are apart, as in the reads).
const excessRefunded = `CASE WHEN r.state->'payment' IS NULL THEN greatest(0, (r.state->>'refundedCents')::bigint - r.total_cents)
		ELSE least(coalesce((r.state->>'excessRefundedCents')::bigint, 0), (r.state->>'refundedCents')::bigint
			- least(coalesce((r.state->>'fundsRefundedCents')::bigint, 0), (r.state->>'refundedCents')::bigint)) END`

// exportPage is how many rows an export reads in one query. An export reads page by page, each
// page a short query of its own from where the last one ended, and hands the page's rows to its
// client while holding no connection, snapshot or lock: a query that streamed every row would
// hold the receipts table's lock for as long as the client took to read them (EXPORT_TIMEOUT),
// and a blue/green swap waiting on that lock holds back every order and status read behind it.
// Pages follow the receipts' creation position (log order, fixed for a receipt and the same in a
// rebuilt table), so an export that meets a swap goes on in the table swapped in, each row once.
// A page of rows is the most an export holds in memory (about 0.5 MiB).
const exportPage = 1000

// exportCursor is where an export's next page begins: after this receipt's creation position
// (positions may tie in rows written outside the log, so the receipt id breaks ties).
type exportCursor struct {
	commit, prepare int64
	id              string
}

// receiptsExport is the receipts export's query; $1 merchant, $2-$3 the window, $4 the status
// (empty: any), $5-$7 the cursor ($5 NULL: the first page), $8 the page's size. Token and buyer
// wallet are the status read's (ReceiptPayloadOf): the payment's, else the first transfer seen,
// else the current attempt's submission (a wallet payment under way); beside an amount received
// at the deposit address the token is the one that amount is in (the status read's amountToken,
// exports_amount_token.go).
const receiptsExport = `SELECT r.receipt_id, (extract(epoch FROM r.created_at) * 1000)::bigint, r.status, r.currency,
		(r.state->'receipt'->>'subtotalCents')::bigint, (r.state->'receipt'->>'taxCents')::bigint, (r.state->'receipt'->>'feeCents')::bigint,
		r.total_cents, coalesce(r.state->'payment'->>'token', fc.token, nullif(r.state->'attempts'->(r.state->>'currentAttempt')->>'token', ''), ''),
		r.amount_received, (r.state->'payment'->>'sourceAmountCents')::bigint,
		CASE WHEN r.status = 'failed' THEN '' ELSE coalesce(r.state->'payment'->>'transactionHash', fc.hash, '') END,
		CASE WHEN r.status = 'failed' THEN '' ELSE coalesce(r.state->'payment'->>'buyerWallet', fc.sender,
			nullif(r.state->'attempts'->(r.state->>'currentAttempt')->>'buyerWallet', ''), '') END,
		coalesce(r.state->'receipt'->>'transactionId', ''), (r.state->'payment'->>'at')::bigint, ` + orderRefunded + `,
		` + excessRefunded + `, ` + amountTokenParts + `,
		r.pos_commit, r.pos_prepare
	FROM %s r LEFT JOIN LATERAL (` + firstCredit + `) fc ON true
	WHERE r.merchant_wallet = $1 AND r.created_at >= $2 AND r.created_at < $3 AND ($4 = '' OR r.status = $4)
	  AND ($5::bigint IS NULL OR (r.pos_commit, r.pos_prepare) >= ($5, $6) AND (r.pos_commit, r.pos_prepare, r.receipt_id) > ($5, $6, $7))
	ORDER BY r.pos_commit, r.pos_prepare, r.receipt_id LIMIT $8`

// Receipts calls row with each of merchant's receipts created in [from, to) (and with status,
// when given), in log order, reading them a page at a time. The slice is row's to keep. It stops
// at row's first error.
func (e *Exports) Receipts(ctx context.Context, merchant string, from, to time.Time, status string, row func([]string) error) error {
	pool, err := e.poolOf(ctx)
	if err != nil {
		return fmt.Errorf("export receipts: %w", err)
	}
	query := fmt.Sprintf(receiptsExport, pgx.Identifier{ReceiptsTable}.Sanitize())
	return readPages(ctx, pool, "receipts", query, []any{merchant, from, to, status}, scanExportReceipt, row)
}

// readPages runs query (args, then the cursor's three values and the page's size) page after
// page, each its own short statement, calling row with each record scan makes of its rows, until
// a page comes back short. Errors: the database's (wrapped, naming the export), and row's first
// (as is).
func readPages(ctx context.Context, pool *pgxpool.Pool, name, query string, args []any,
	scan func(pgx.Rows, *exportCursor) ([]string, error), row func([]string) error) error {
	var after *exportCursor
	for {
		var commit, prepare *int64
		var id string
		if after != nil {
			commit, prepare, id = &after.commit, &after.prepare, after.id
		}
		page, last, err := readPage(ctx, pool, query, append(args[:len(args):len(args)], commit, prepare, id, exportPage), scan)
		if err != nil {
			return fmt.Errorf("export %s: %w", name, err)
		}
		for _, rec := range page {
			if err := row(rec); err != nil {
				return err
			}
		}
		if len(page) < exportPage {
			return nil
		}
		after = &last
	}
}

// readPage is one page of query's records and the cursor of its last row.
func readPage(ctx context.Context, pool *pgxpool.Pool, query string, args []any,
	scan func(pgx.Rows, *exportCursor) ([]string, error)) ([][]string, exportCursor, error) {
	var c exportCursor
	rows, err := pool.Query(ctx, query, args...)
	if err != nil {
		return nil, c, err
	}
	defer rows.Close()
	page := make([][]string, 0, exportPage)
	for rows.Next() {
		rec, err := scan(rows, &c)
		if err != nil {
			return nil, c, err
		}
		page = append(page, rec)
	}
	return page, c, rows.Err()
}

// scanExportReceipt is a record of the receipts export; c becomes its row's cursor.
func scanExportReceipt(rows pgx.Rows, c *exportCursor) ([]string, error) {
	rec := make([]string, len(ReceiptColumns))
	var created, total int64
	var subtotal, tax, fee, source, paidAt, refunded, excess *int64
	var received *string
	var amounts amountTokenRow
	if err := rows.Scan(&rec[0], &created, &rec[2], &rec[3], &subtotal, &tax, &fee, &total, &rec[8], &received, &source,
		&rec[10], &rec[11], &rec[12], &paidAt, &refunded, &excess, &amounts.firstToken, &amounts.quotedToken, &amounts.quotes, &amounts.eurUSDRate,
		&c.commit, &c.prepare); err != nil {
		return nil, err
	}
	c.id = rec[0]
	rec[1], rec[4], rec[5], rec[6], rec[7] = isoMillis(&created), decimal(subtotal), decimal(tax), decimal(fee), decimal(&total)
	// What the deposit's confirmed transfers brought, in the requested token (the column the
	// projector keeps); a receipt paid through the processor: what the processor reported.
	rec[9] = decimal(source)
	if received != nil {
		rec[9] = *received
		rec[8] = amounts.token(rec[3], total) // the token the amount is in (stop 69)
	}
	rec[13], rec[14], rec[15] = isoMillis(paidAt), decimal(refunded), decimal(excess)
	return rec, nil
}

// splitsExport is the split transactions export's query; $1 merchant, $2-$3 the window (Unix ms
// of the distribution), $4-$6 the cursor ($4 NULL: the first page), $7 the page's size.
const splitsExport = `SELECT receipt_id, (state->>'splitDistributedAt')::bigint, currency, total_cents,
		(state->'receipt'->>'feeCents')::bigint, coalesce(state->'payment'->>'token', ''), coalesce(state->>'splitTransactionHash', ''),
		pos_commit, pos_prepare
	FROM %s
	WHERE merchant_wallet = $1 AND state->>'splitDistributedAt' IS NOT NULL
	  AND (state->>'splitDistributedAt')::bigint >= $2 AND (state->>'splitDistributedAt')::bigint < $3
	  AND ($4::bigint IS NULL OR (pos_commit, pos_prepare) >= ($4, $5) AND (pos_commit, pos_prepare, receipt_id) > ($4, $5, $6))
	ORDER BY pos_commit, pos_prepare, receipt_id LIMIT $7`

// SplitTransactions calls row with each of merchant's split distributions made in [from, to), in
// log order of their receipts, reading them a page at a time (as Receipts).
func (e *Exports) SplitTransactions(ctx context.Context, merchant string, from, to time.Time, row func([]string) error) error {
	pool, err := e.poolOf(ctx)
	if err != nil {
		return fmt.Errorf("export split transactions: %w", err)
	}
	query := fmt.Sprintf(splitsExport, pgx.Identifier{ReceiptsTable}.Sanitize())
	return readPages(ctx, pool, "split transactions", query, []any{merchant, from.UnixMilli(), to.UnixMilli()}, scanExportSplit, row)
}

// scanExportSplit is a record of the split transactions export; c becomes its row's cursor.
func scanExportSplit(rows pgx.Rows, c *exportCursor) ([]string, error) {
	rec := make([]string, len(SplitColumns))
	var at, total int64
	var fee *int64
	if err := rows.Scan(&rec[0], &at, &rec[2], &total, &fee, &rec[5], &rec[6], &c.commit, &c.prepare); err != nil {
		return nil, err
	}
	c.id = rec[0]
	rec[1], rec[3], rec[4] = isoMillis(&at), decimal(&total), decimal(fee)
	return rec, nil
}
