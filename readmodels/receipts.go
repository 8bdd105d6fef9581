package readmodels

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// ReceiptRow is a receipt as the read model holds it.
type ReceiptRow struct {
	Receipt        receipt.Generated
	Status         receipt.Status
	PreviousStatus receipt.Status
	UpdatedAt      time.Time
	Version        uint64
}

// Receipts queries the receipts read model.
type Receipts struct{ pool *pgxpool.Pool }

// NewReceipts returns the receipts read model on pool.
func NewReceipts(pool *pgxpool.Pool) *Receipts { return &Receipts{pool: pool} }

const receiptColumns = `receipt, status, coalesce(previous_status, ''), updated_at, version, pos_commit, pos_prepare`

func scanReceipt(r pgx.Row) (ReceiptRow, eventstore.Position, error) {
	var row ReceiptRow
	var raw []byte
	var version, commit, prepare int64
	if err := r.Scan(&raw, &row.Status, &row.PreviousStatus, &row.UpdatedAt, &version, &commit, &prepare); err != nil {
		return row, eventstore.Position{}, err
	}
	row.Version = uint64(version)
	if err := json.Unmarshal(raw, &row.Receipt); err != nil {
		return row, eventstore.Position{}, fmt.Errorf("decode receipt: %w", err)
	}
	return row, eventstore.Position{Commit: uint64(commit), Prepare: uint64(prepare)}, nil
}

// Get returns merchant's receipt id, or ErrNotFound (also for another merchant's receipt).
func (s *Receipts) Get(ctx context.Context, merchant, id string) (ReceiptRow, error) {
	row, _, err := scanReceipt(s.pool.QueryRow(ctx, `SELECT `+receiptColumns+` FROM receipts WHERE receipt_id = $1 AND merchant_wallet = $2`, id, merchant))
	if errors.Is(err, pgx.ErrNoRows) {
		return ReceiptRow{}, ErrNotFound
	}
	return row, err
}

// List returns a page of merchant's receipts, newest first (log order), optionally of one status,
// and the cursor of the next page ("" at the end).
func (s *Receipts) List(ctx context.Context, merchant, status string, limit int, cursor string) ([]ReceiptRow, string, error) {
	before, err := decodePositionCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+receiptColumns+` FROM receipts
		WHERE merchant_wallet = $1 AND ($2 = '' OR status = $2)
		  AND ($3::bigint IS NULL OR (pos_commit, pos_prepare) < ($3, $4))
		ORDER BY pos_commit DESC, pos_prepare DESC LIMIT $5`, merchant, status, before.commit, before.prepare, limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("list receipts: %w", err)
	}
	defer rows.Close()
	var out []ReceiptRow
	var last eventstore.Position
	for rows.Next() {
		if len(out) == limit {
			return out, encodePositionCursor(last), nil
		}
		row, pos, err := scanReceipt(rows)
		if err != nil {
			return nil, "", err
		}
		out = append(out, row)
		last = pos
	}
	return out, "", rows.Err()
}

type positionCursor struct{ commit, prepare *int64 }

func encodePositionCursor(p eventstore.Position) string {
	return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("p%d.%d", p.Commit, p.Prepare)))
}

func decodePositionCursor(c string) (positionCursor, error) {
	if c == "" {
		return positionCursor{}, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	var commit, prepare int64
	if err != nil {
		return positionCursor{}, ErrBadCursor
	}
	if n, err := fmt.Sscanf(string(raw), "p%d.%d", &commit, &prepare); err != nil || n != 2 {
		return positionCursor{}, ErrBadCursor
	}
	return positionCursor{&commit, &prepare}, nil
}

// QueueGenerated queues the insert of a new receipt into batch; the receipts projector sends it
// inside its transaction. A receipt already present is left alone (its first event wins).
func QueueGenerated(batch *pgx.Batch, g receipt.Generated, version uint64, pos eventstore.Position) error {
	raw, err := json.Marshal(g)
	if err != nil {
		return err
	}
	var webhook *string
	if g.WebhookURL != "" {
		webhook = &g.WebhookURL
	}
	created := time.UnixMilli(g.CreatedAt).UTC()
	batch.Queue(`INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents, webhook_url, receipt, created_at, updated_at, version, pos_commit, pos_prepare)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$8,$9,$10,$11) ON CONFLICT (receipt_id) DO NOTHING`,
		g.ReceiptID, g.Merchant, string(receipt.StatusGenerated), g.Currency, int64(g.Total), webhook, raw, created, int64(version),
		int64(pos.Commit), int64(pos.Prepare))
	return nil
}

// ResetReceipts empties the receipts read model (rebuilds).
func ResetReceipts(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `DELETE FROM receipts`)
	return err
}
