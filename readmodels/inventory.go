package readmodels

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Item is an inventory item.
type Item struct {
	ID         uuid.UUID
	Wallet     string
	SKU        string
	Name       string
	PriceCents int64
	Currency   string
	StockQty   int64
	Taxable    bool
	Thumb      string
	// On an update by SKU, fields not given keep their stored values.
	HasStock, HasTaxable, HasThumb bool
	CreatedAt                      time.Time
	UpdatedAt                      time.Time
}

// InventoryChangedChannel announces, at commit, a change to a merchant's items; the payload is
// the wallet followed by "|", the prefix of that merchant's entries in inventory caches.
const InventoryChangedChannel = "payledger_inventory_changed"

// MaxItems bounds a merchant's catalog: without a bound one key (or a leaked one) could add
// items until the table filled the disk, every one listed and cached for the merchant.
const MaxItems = 100_000

// ErrTooManyItems is returned for a new SKU when the merchant already has its maximum of items.
var ErrTooManyItems = errors.New("too many inventory items")

// Inventory stores merchants' items.
type Inventory struct {
	pool *pgxpool.Pool
	// MaxItems is the bound on each merchant's items (MaxItems unless a test lowers it).
	MaxItems int
}

// NewInventory returns the inventory store on pool.
func NewInventory(pool *pgxpool.Pool) *Inventory { return &Inventory{pool: pool, MaxItems: MaxItems} }

const itemColumns = `id, wallet, sku, name, price_cents, currency, stock_qty, taxable, thumb, created_at, updated_at`

func scanItem(r pgx.Row) (Item, error) {
	var it Item
	err := r.Scan(&it.ID, &it.Wallet, &it.SKU, &it.Name, &it.PriceCents, &it.Currency, &it.StockQty, &it.Taxable, &it.Thumb, &it.CreatedAt, &it.UpdatedAt)
	return it, err
}

// Upsert creates the item or updates the one with the same SKU; created tells which. A new SKU
// past the merchant's MaxItems is ErrTooManyItems; an update of an existing SKU always passes.
func (s *Inventory) Upsert(ctx context.Context, it Item) (Item, bool, error) {
	var out Item
	var created, notified bool
	// The count and the insert run under a per-merchant lock held to commit: in READ COMMITTED,
	// concurrent creates each counted the others' uncommitted rows as absent.
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('payledger inventory:' || $1::text, 0))`, it.Wallet); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `WITH up AS (INSERT INTO inventory_items (id, wallet, sku, name, price_cents, currency, stock_qty, taxable, thumb)
			SELECT $1,$2,$3,$4,$5,$6,$7,$8,$9
			WHERE EXISTS (SELECT 1 FROM inventory_items WHERE wallet = $2 AND sku = $3)
			   OR (SELECT count(*) FROM inventory_items WHERE wallet = $2) < $13
			ON CONFLICT (wallet, sku) DO UPDATE SET name = EXCLUDED.name, price_cents = EXCLUDED.price_cents,
				currency = EXCLUDED.currency,
				stock_qty = CASE WHEN $10 THEN EXCLUDED.stock_qty ELSE inventory_items.stock_qty END,
				taxable = CASE WHEN $11 THEN EXCLUDED.taxable ELSE inventory_items.taxable END,
				thumb = CASE WHEN $12 THEN EXCLUDED.thumb ELSE inventory_items.thumb END, updated_at = now()
			RETURNING `+itemColumns+`, (xmax = 0) AS created)
			SELECT up.*, pg_notify('`+InventoryChangedChannel+`', $2 || '|') IS NULL FROM up`, uuid.New(), it.Wallet, it.SKU, it.Name, it.PriceCents, it.Currency, it.StockQty, it.Taxable, it.Thumb,
			it.HasStock, it.HasTaxable, it.HasThumb, s.MaxItems).
			Scan(&out.ID, &out.Wallet, &out.SKU, &out.Name, &out.PriceCents, &out.Currency, &out.StockQty, &out.Taxable, &out.Thumb, &out.CreatedAt, &out.UpdatedAt, &created, &notified)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return Item{}, false, ErrTooManyItems
	}
	if err != nil {
		return Item{}, false, fmt.Errorf("save item: %w", err)
	}
	return out, created, nil
}

// Delete removes wallet's item id; another wallet's or an unknown item is ErrNotFound.
func (s *Inventory) Delete(ctx context.Context, wallet string, id uuid.UUID) error {
	var deleted int
	err := s.pool.QueryRow(ctx, `WITH d AS (DELETE FROM inventory_items WHERE id = $1 AND wallet = $2 RETURNING wallet)
		SELECT count(*) FROM (SELECT pg_notify('`+InventoryChangedChannel+`', wallet || '|') FROM d) n`, id, wallet).Scan(&deleted)
	if err != nil {
		return fmt.Errorf("delete item: %w", err)
	}
	if deleted == 0 {
		return ErrNotFound
	}
	return nil
}

// Find returns wallet's items by ids and by SKUs (missing ones are simply absent).
func (s *Inventory) Find(ctx context.Context, wallet string, ids []uuid.UUID, skus []string) ([]Item, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+itemColumns+` FROM inventory_items WHERE wallet = $1 AND (id = ANY($2) OR sku = ANY($3))`, wallet, ids, skus)
	if err != nil {
		return nil, fmt.Errorf("find items: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Item, error) { return scanItem(r) })
}

// ItemFilter narrows an inventory listing.
type ItemFilter struct {
	Q, SKU, Currency string
	Taxable          *bool
	Limit            int
	Cursor           string
}

// ErrBadCursor is returned for a cursor this store did not issue.
var ErrBadCursor = errors.New("invalid cursor")

// List returns a page of wallet's items oldest first and the cursor of the next page ("" at the end).
func (s *Inventory) List(ctx context.Context, wallet string, f ItemFilter) ([]Item, string, error) {
	after, afterID, err := decodeCursor(f.Cursor)
	if err != nil {
		return nil, "", err
	}
	var taxable any
	if f.Taxable != nil {
		taxable = *f.Taxable
	}
	rows, err := s.pool.Query(ctx, `SELECT `+itemColumns+` FROM inventory_items
		WHERE wallet = $1
		  AND ($2 = '' OR name ILIKE '%' || $2 || '%' OR sku ILIKE '%' || $2 || '%')
		  AND ($3 = '' OR sku = $3)
		  AND ($4 = '' OR currency = $4)
		  AND ($5::boolean IS NULL OR taxable = $5)
		  AND ($6::timestamptz IS NULL OR (created_at, id) > ($6, $7::uuid))
		ORDER BY created_at, id LIMIT $8`,
		wallet, escapeLike(f.Q), f.SKU, f.Currency, taxable, after, afterID, f.Limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("list items: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Item, error) { return scanItem(r) })
	if err != nil {
		return nil, "", fmt.Errorf("list items: %w", err)
	}
	next := ""
	if len(items) > f.Limit {
		items = items[:f.Limit]
		last := items[len(items)-1]
		next = encodeCursor(last.CreatedAt, last.ID.String())
	}
	return items, next, nil
}

// escapeLike makes s match itself in a LIKE pattern (the inventory's and the users' q).
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Cursors are opaque to clients: base64 of "<unix µs>|<id>".
func encodeCursor(t time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("%d|%s", t.UnixMicro(), id)))
}

// minCursorMicros is PostgreSQL's earliest timestamptz (4714-11-24 00:00 UTC BC) in Unix µs; its
// latest is beyond an int64 of µs. A cursor's time is sent as a timestamptz: one before this
// fails the query (a 500), and one near the lowest int64 overflows the driver's arithmetic and
// silently pages from the far future.
const minCursorMicros = -210_866_803_200_000_000

// decodeCursor reads a cursor encodeCursor wrote, or refuses it with ErrBadCursor. A client can
// forge one, so each part is checked here, where a bad one is the client's fault, rather than
// by the query's casts, where it is an internal error.
func decodeCursor(c string) (*time.Time, uuid.UUID, error) {
	if c == "" {
		return nil, uuid.Nil, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, uuid.Nil, ErrBadCursor
	}
	us, id, ok := strings.Cut(string(raw), "|")
	if !ok {
		return nil, uuid.Nil, ErrBadCursor
	}
	micros, err := strconv.ParseInt(us, 10, 64)
	if err != nil || micros < minCursorMicros {
		return nil, uuid.Nil, ErrBadCursor
	}
	after, err := uuid.Parse(id)
	if err != nil {
		return nil, uuid.Nil, ErrBadCursor
	}
	t := time.UnixMicro(micros)
	return &t, after, nil
}
