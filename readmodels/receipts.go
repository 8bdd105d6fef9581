package readmodels

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// ReceiptRow is a receipt as the read model holds it.
type ReceiptRow struct {
	State   receipt.State
	Version uint64
	// Delivery is the state of the receipt's newest webhook notification ("" when none), read
	// along with the receipt by Get.
	Delivery string
}

// Receipts queries the receipts read model.
type Receipts struct{ pool *pgxpool.Pool }

// NewReceipts returns the receipts read model on pool.
func NewReceipts(pool *pgxpool.Pool) *Receipts { return &Receipts{pool: pool} }

const receiptColumns = `state, version, pos_commit, pos_prepare`

func scanReceipt(r pgx.Row) (ReceiptRow, eventstore.Position, error) {
	var row ReceiptRow
	var raw []byte
	var version, commit, prepare int64
	if err := r.Scan(&raw, &version, &commit, &prepare); err != nil {
		return row, eventstore.Position{}, err
	}
	row.Version = uint64(version)
	if err := json.Unmarshal(raw, &row.State); err != nil {
		return row, eventstore.Position{}, fmt.Errorf("decode receipt state: %w", err)
	}
	return row, eventstore.Position{Commit: uint64(commit), Prepare: uint64(prepare)}, nil
}

// Get returns merchant's receipt id, or ErrNotFound (also for another merchant's receipt).
// An empty merchant reads any merchant's receipt (public status polling, platform admins).
func (s *Receipts) Get(ctx context.Context, merchant, id string) (ReceiptRow, error) {
	var row ReceiptRow
	var raw []byte
	var version int64
	// ReadPool: a replica for the routes that tolerate staleness (the payment page), DESIGN 10.
	err := ReadPool(ctx, s.pool).QueryRow(ctx, `SELECT r.state, r.version, coalesce(n.state, '') FROM receipts r
		LEFT JOIN LATERAL (SELECT state FROM webhook_notifications WHERE receipt_id = r.receipt_id
			ORDER BY (state IN ('pending', 'retrying', 'marked')) DESC, created_at DESC LIMIT 1) n ON true
		WHERE r.receipt_id = $1 AND ($2 = '' OR r.merchant_wallet = $2)`, id, merchant).Scan(&raw, &version, &row.Delivery)
	if errors.Is(err, pgx.ErrNoRows) {
		return ReceiptRow{}, ErrNotFound
	}
	if err != nil {
		return ReceiptRow{}, fmt.Errorf("read receipt %s: %w", id, err)
	}
	row.Version = uint64(version)
	if err := json.Unmarshal(raw, &row.State); err != nil {
		return ReceiptRow{}, fmt.Errorf("decode receipt state: %w", err)
	}
	return row, nil
}

// OpenOnrampAttempts lists receipts still generated or pending whose current attempt is an
// onramp session started before `before`, oldest first: the verifier's work list. A session whose
// success paid too little is over (receipt.State.EndedAttempts): asking the processor about it
// again on every pass would only take the place of open ones at the head of the list.
func (s *Receipts) OpenOnrampAttempts(ctx context.Context, before time.Time, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT receipt_id FROM receipts
		WHERE status IN ('generated', 'pending') AND attempt_kind = 'onramp' AND attempt_started_at < $1
		  AND NOT coalesce(state->'endedAttempts' ? (state->>'currentAttempt'), false)
		ORDER BY attempt_started_at LIMIT $2`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("list open attempts: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// List returns a page of merchant's receipts, newest first (log order), optionally of one status,
// and the cursor of the next page ("" at the end).
func (s *Receipts) List(ctx context.Context, merchant, status string, limit int, cursor string) ([]ReceiptRow, string, error) {
	before, err := decodePositionCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	rows, err := ReadPool(ctx, s.pool).Query(ctx, `SELECT `+receiptColumns+` FROM receipts
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
	// Only a cursor this store wrote: Sscanf stops at what follows ("p1.2junk") and reads
	// negative positions no receipt has.
	if commit < 0 || prepare < 0 || encodePositionCursor(eventstore.Position{Commit: uint64(commit), Prepare: uint64(prepare)}) != c {
		return positionCursor{}, ErrBadCursor
	}
	return positionCursor{&commit, &prepare}, nil
}

// QueueLoadStates queues into batch the read, locked for update, of the stored states and
// versions of the given receipts (absent ones are simply missing from the maps, which are filled
// when the batch is sent).
func QueueLoadStates(batch *pgx.Batch, table string, ids []string, states map[string]receipt.State, versions map[string]uint64) {
	batch.Queue(`SELECT receipt_id, state, version FROM `+pgx.Identifier{table}.Sanitize()+` WHERE receipt_id = ANY($1) FOR UPDATE`, ids).
		Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id string
				var raw []byte
				var version int64
				if err := rows.Scan(&id, &raw, &version); err != nil {
					return err
				}
				var st receipt.State
				if err := json.Unmarshal(raw, &st); err != nil {
					return fmt.Errorf("decode state of %s: %w", id, err)
				}
				states[id], versions[id] = st, uint64(version)
			}
			return rows.Err()
		})
}

// StateRow is one receipt state to store: its state, stream version, and the position of its
// first event (kept from the insert: list order never changes).
type StateRow struct {
	State   receipt.State
	Version uint64
	First   eventstore.Position
	// New says no row can exist for the receipt yet (its first event is in the batch being
	// applied, beyond the checkpoint that commits with the rows): a plain INSERT, not an upsert.
	New bool
	// ReceiptJSON, when set, is the JSON of State.Receipt exactly as json.Marshal writes it (a new
	// receipt's generation event, as its command encoded it): the state's JSON takes it as is
	// instead of encoding the receipt a second time (stateJSON).
	ReceiptJSON []byte
}

// QueueStates queues into batch the writes of rows (distinct receipts): one INSERT of the new
// receipts and one upsert of the others. A new receipt that somehow has a row already fails the
// insert (and so the batch, whose checkpoint does not move) instead of being silently overwritten.
func QueueStates(batch *pgx.Batch, table string, rows []StateRow) error {
	// In receipt order: a paid deposit receipt's row fires the deposit_sweeps_seen trigger
	// (migration 030), which locks its deposit_sweeps row, and the sweeper locks those rows in the
	// same order. (The new rows' statement runs before the others', so a batch holding both can
	// still lock out of order: in a rebuild, whose replay may make receipts sweepable anew.
	// PostgreSQL then aborts one side and both retry: the batch's checkpoint did not move, and the
	// sweeper's pass runs again.)
	rows = slices.SortedFunc(slices.Values(rows), func(a, b StateRow) int {
		return strings.Compare(a.State.Receipt.ReceiptID, b.State.Receipt.ReceiptID)
	})
	var fresh, known []StateRow
	for _, r := range rows {
		if r.New {
			fresh = append(fresh, r)
		} else {
			known = append(known, r)
		}
	}
	for _, part := range []struct {
		rows     []StateRow
		conflict string
	}{{fresh, ""}, {known, ` ON CONFLICT (receipt_id) DO UPDATE SET status = EXCLUDED.status, previous_status = EXCLUDED.previous_status,
			state = EXCLUDED.state, updated_at = EXCLUDED.updated_at, version = EXCLUDED.version,
			attempt_kind = EXCLUDED.attempt_kind, attempt_started_at = EXCLUDED.attempt_started_at,
			amount_required = EXCLUDED.amount_required, amount_received = EXCLUDED.amount_received, paid_late = EXCLUDED.paid_late`}} {
		if len(part.rows) == 0 {
			continue
		}
		args, err := stateColumns(part.rows)
		if err != nil {
			return err
		}
		batch.Queue(`INSERT INTO `+pgx.Identifier{table}.Sanitize()+` `+StateColumns+`
		SELECT u.id, u.merchant, u.status, u.prev, u.currency, u.total, u.webhook, u.state::jsonb, u.created, u.updated,
			u.version, u.pc, u.pp, u.kind, u.attempt, `+DepositValues+`
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[],
			$9::timestamptz[], $10::timestamptz[], $11::bigint[], $12::bigint[], $13::bigint[], $14::text[], $15::timestamptz[],
			$16::text[], $17::text[], $18::timestamptz[], $19::text[], $20::text[], $21::boolean[])
			AS u(id, merchant, status, prev, currency, total, webhook, state, created, updated, version, pc, pp, kind, attempt,
			deposit, split, expires, required, received, late)`+part.conflict,
			args...)
	}
	return nil
}

// StateColumns is the column list of a receipts row's INSERT, in the order of QueueStates' and
// ReceiptsAtAppendArgs' values (ReceiptsAtAppendArgs leaves out the two position columns).
const StateColumns = `(receipt_id, merchant_wallet, status, previous_status, currency, total_cents, webhook_url, state,
	created_at, updated_at, version, pos_commit, pos_prepare, attempt_kind, attempt_started_at,
	deposit_address, deposit_split, expires_at, amount_required, amount_received, paid_late)`

// DepositValues are the values of the last six StateColumns (payments by deposit address) from
// the unnest u of QueueStates and StateElemsUnnest.
const DepositValues = `u.deposit, u.split, u.expires, u.required, u.received, u.late`

// stateColumns is rows as the column arrays of QueueStates' statements.
func stateColumns(rows []StateRow) ([]any, error) {
	n := len(rows)
	ids, merchants, statuses, currencies := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	prevs, webhooks, kinds := make([]*string, n), make([]*string, n), make([]*string, n)
	states := make([][]byte, n) // JSON text, as bytes: a string would copy each state (issue 38)
	totals, versions, commits, prepares := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	created, updated, attempts := make([]time.Time, n), make([]time.Time, n), make([]*time.Time, n)
	deposits, splits, expires, required, received := make([]*string, n), make([]*string, n), make([]*time.Time, n), make([]*string, n), make([]*string, n)
	lates := make([]bool, n)
	for i, row := range rows {
		v, err := valuesOf(row)
		if err != nil {
			return nil, err
		}
		deposits[i], splits[i], expires[i], required[i], received[i], lates[i] = v.deposit, v.split, v.expires, v.required, v.received, v.late
		ids[i], merchants[i], statuses[i], prevs[i], currencies[i] = v.id, v.merchant, v.status, v.prev, v.currency
		totals[i], webhooks[i], states[i], created[i], updated[i] = v.total, v.webhook, v.state, v.created, v.updated
		versions[i], kinds[i], attempts[i] = v.version, v.kind, v.attempt
		commits[i], prepares[i] = int64(row.First.Commit), int64(row.First.Prepare)
	}
	return []any{ids, merchants, statuses, prevs, currencies, totals, webhooks, states, created, updated, versions, commits, prepares, kinds, attempts,
		deposits, splits, expires, required, received, lates}, nil
}

// StateElemsUnnest is the unnest of ReceiptsAtAppendArgs' columns, as the rows u(id, merchant,
// status, prev, currency, total, webhook, state, created, updated, version, kind, attempt, ...).
const StateElemsUnnest = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[],
	$9::timestamptz[], $10::timestamptz[], $11::bigint[], $12::text[], $13::timestamptz[],
	$14::text[], $15::text[], $16::timestamptz[], $17::text[], $18::text[], $19::boolean[])
	AS u(id, merchant, status, prev, currency, total, webhook, state, created, updated, version, kind, attempt,
	deposit, split, expires, required, received, late)`

// stateValues is one receipts row's values, its position aside.
type stateValues struct {
	id, merchant, status, currency     string
	state                              []byte
	prev, webhook, kind                *string
	total, version                     int64
	created, updated                   time.Time
	attempt                            *time.Time
	deposit, split, required, received *string
	expires                            *time.Time
	late                               bool
}

func valuesOf(row StateRow) (stateValues, error) {
	st, g := row.State, row.State.Receipt
	raw, err := stateJSON(row)
	if err != nil {
		return stateValues{}, err
	}
	v := stateValues{id: g.ReceiptID, merchant: g.Merchant, status: string(st.Status), currency: g.Currency, state: raw,
		total: int64(g.Total), version: int64(row.Version),
		created: time.UnixMilli(g.CreatedAt).UTC(), updated: time.UnixMilli(st.UpdatedAt).UTC()}
	if g.WebhookURL != "" {
		v.webhook = &g.WebhookURL
	}
	if a, ok := st.Current(); ok {
		k, at := a.Kind, time.UnixMilli(a.StartedAt).UTC()
		v.kind, v.attempt = &k, &at
	}
	if st.PreviousStatus != "" {
		p := string(st.PreviousStatus)
		v.prev = &p
	}
	depositValues(st, &v)
	return v, nil
}

// ReceiptsChangedChannel announces, at commit, receipts whose read-model row or webhook delivery
// state changed; its payload is a comma-separated list of receipt ids, or "*" for all of them.
// Status caches in every instance listen on it.
const ReceiptsChangedChannel = "payledger_receipts_changed"

// notifyPayloadMax keeps NOTIFY payloads under PostgreSQL's 8000-byte limit.
const notifyPayloadMax = 7900

// ReceiptsChangedPayload is the notification of ids changing, "*" when the list is too long.
func ReceiptsChangedPayload(ids []string) string {
	n := 0
	for _, id := range ids {
		n += len(id) + 1
	}
	if n > notifyPayloadMax {
		return "*"
	}
	return strings.Join(ids, ",")
}

// QueueReceiptsChanged queues, into a transaction's batch, the notification that ids changed.
func QueueReceiptsChanged(batch *pgx.Batch, ids []string) {
	if len(ids) > 0 {
		batch.Queue(`SELECT pg_notify('`+ReceiptsChangedChannel+`', $1)`, ReceiptsChangedPayload(ids))
	}
}

// ResetReceipts empties a receipts read-model table (rebuilds); every cached status is dropped
// when the transaction commits.
func ResetReceipts(ctx context.Context, tx pgx.Tx, table string) error {
	_, err := tx.Exec(ctx, `DELETE FROM `+pgx.Identifier{table}.Sanitize())
	if err == nil && table == "receipts" {
		_, err = tx.Exec(ctx, `SELECT pg_notify('`+ReceiptsChangedChannel+`', '*')`)
	}
	return err
}
