package commands

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
)

// The last step of every command that creates a receipt (an order, a direct receipt): the
// Idempotency-Key claim, the webhook signing key captured with the receipt, the append of its
// generation, and the journal while the datastore is down.

// IdempotencyClaims records which receipt an Idempotency-Key created: Claim stores (key, hash,
// id) unless the key is already held (for any request of the merchant, not only receipts'), and
// returns what the key holds; Release forgets a binding (key, hash, id) whose receipt was
// definitely not stored, so that the key is free again; Bound reads the key's live binding
// without claiming it ("", "" when there is none).
type IdempotencyClaims interface {
	Claim(ctx context.Context, wallet, key, requestHash, receiptID string) (hash, id string, err error)
	Release(ctx context.Context, wallet, key, requestHash, receiptID string) error
	Bound(ctx context.Context, wallet, key string) (hash, id string, err error)
}

// WebhookKeyVault keeps each receipt's webhook signing key encrypted, outside the events.
type WebhookKeyVault interface {
	Save(ctx context.Context, receiptID, secret string) error
	// Seal encrypts a key without storing it: to commit with the receipt's first append
	// (GenerationAppender), or to journal it.
	Seal(receiptID, secret string) (nonce, sealed []byte, err error)
}

// Journal keeps orders accepted while the datastore does not answer (eventstore/journal).
type Journal interface {
	Append(e journal.Entry) error
	// Lookup returns the entry of stream while it waits to be stored.
	Lookup(stream string) (journal.Entry, bool)
}

// Issue is how a new receipt is stored.
type Issue struct {
	IdempotencyKey string // "" without Idempotency-Key
	RequestHash    string // hash of the request, required with IdempotencyKey
	// LegacyRequestHash is the same request's hash as bindings made before stop 60 hold (method,
	// route and body, no query): a retry of such a request within the key's 24 h is the same
	// request, not a conflict. Empty: none.
	LegacyRequestHash string
	SigningKey        string // the API key that signs the receipt's webhooks; "" for none
	Meta              eventstore.Metadata
}

// Issued is a stored (or journaled) receipt.
type Issued struct {
	State    receipt.State
	Result   eventstore.AppendResult // zero when Degraded
	Degraded bool                    // journaled while the datastore is down; stored when it is back
	// Replayed: the Idempotency-Key was bound by an earlier request, whose receipt this is.
	Replayed bool
}

// Issuer stores new receipts.
type Issuer struct {
	store       Store
	claims      IdempotencyClaims
	keys        WebhookKeyVault
	journal     Journal // nil: no degraded mode
	unavailable func(error) bool
	now         func() time.Time
	deposits    *depositAssignment // nil: receipts get no deposit address and no window
}

// NewIssuer returns an issuer; journal may be nil (no degraded mode); unavailable tells the
// errors of a datastore that does not answer. It panics on another nil dependency.
func NewIssuer(store Store, claims IdempotencyClaims, keys WebhookKeyVault, j Journal, unavailable func(error) bool, now func() time.Time) *Issuer {
	if store == nil || claims == nil || keys == nil || unavailable == nil || now == nil {
		panic("commands.NewIssuer: nil dependency")
	}
	return &Issuer{store: store, claims: claims, keys: keys, journal: j, unavailable: unavailable, now: now}
}

// Issue stores the generation of g for the merchant g.Merchant. With an Idempotency-Key, the same
// request again answers the receipt it created. Errors: Invalid, ErrIdempotencyConflict,
// ErrReceiptExists, receipt.ErrTotal, wrapped store errors (a datastore that does not answer,
// when the receipt cannot be journaled).
func (i *Issuer) Issue(ctx context.Context, g receipt.Generated, how Issue) (Issued, error) {
	if g.ReceiptID == "" {
		g.ReceiptID = NewReceiptID(i.now())
	}
	replay := false
	if how.IdempotencyKey != "" {
		if len(how.IdempotencyKey) > 255 {
			return Issued{}, Invalid("Idempotency-Key must be at most 255 characters")
		}
		g.RequestHash = how.RequestHash
		hash, id, err := i.claims.Claim(ctx, g.Merchant, how.IdempotencyKey, g.RequestHash, g.ReceiptID)
		if err != nil {
			return Issued{}, err
		}
		switch {
		case hash == g.RequestHash:
		case how.LegacyRequestHash != "" && hash == how.LegacyRequestHash:
			g.RequestHash = hash // the receipt, if stored, holds the binding's hash
		default:
			return Issued{}, ErrIdempotencyConflict
		}
		replay, g.ReceiptID = id != g.ReceiptID, id
	}
	issued, err := i.generate(ctx, g, how, replay)
	issued.Replayed = (replay || issued.Replayed) && err == nil
	var no notStored
	if errors.As(err, &no) {
		err = no.err
		// A cancelled request (the client went) is not released: its retry may be storing the
		// receipt under the bound id right now.
		if how.IdempotencyKey != "" && !replay && ctx.Err() == nil {
			// Best effort: a release that fails leaves the key bound, as before, and the
			// request's own error is the answer.
			_ = i.claims.Release(context.WithoutCancel(ctx), g.Merchant, how.IdempotencyKey, g.RequestHash, g.ReceiptID)
		}
	}
	return issued, err
}

// Replayed is the receipt an earlier request with the same Idempotency-Key and the same request
// hash stored, for a command that refused this request before issuing it (a check that reads
// state, such as the inventory, which may have changed since): the same request answers the
// first answer again for the key's lifetime (DESIGN 9). ok is false without a key, when the key
// is free or held for another request, when the bound receipt is not stored (yet), and when the
// lookup fails: the caller then answers its own refusal.
func (i *Issuer) Replayed(ctx context.Context, merchant string, how Issue) (issued Issued, ok bool) {
	if how.IdempotencyKey == "" {
		return Issued{}, false
	}
	hash, id, err := i.claims.Bound(ctx, merchant, how.IdempotencyKey)
	if err != nil || id == "" || (hash != how.RequestHash && (how.LegacyRequestHash == "" || hash != how.LegacyRequestHash)) {
		return Issued{}, false
	}
	loaded, err := LoadReceipt(ctx, i.store, id)
	if err != nil || !loaded.State.Exists || loaded.State.Receipt.Merchant != merchant || loaded.State.Receipt.RequestHash != hash {
		return Issued{}, false
	}
	return Issued{State: loaded.State, Replayed: true}, true
}

// notStored is an error after which the receipt is definitely not stored: it came before the
// append, or the append found the receipt id taken by another request. An append whose commit
// failed may have stored it, so its error is never notStored.
type notStored struct{ err error }

func (e notStored) Error() string { return e.err.Error() }
func (e notStored) Unwrap() error { return e.err }

// generate assigns the receipt's deposit, decides its generation and appends it (or journals it).
// Errors: Issue's, those after which nothing was stored wrapped in notStored.
func (i *Issuer) generate(ctx context.Context, g receipt.Generated, how Issue, replay bool) (Issued, error) {
	if replay { // the first request's receipt, as it is stored, whatever this request would decide now
		if issued, ok, err := i.stored(ctx, g); ok || err != nil {
			return issued, err
		}
	}
	now := i.now()
	g, err := i.deposits.assign(ctx, g, now)
	if err != nil {
		return Issued{}, notStored{err}
	}
	// The event is decided once: if the append's answer is lost (the datastore went away during
	// the commit), the journal keeps this very event, and its replay finds it stored or stores it.
	ev, state, err := GenerationEvent(g, now, how.Meta)
	if err != nil {
		return Issued{}, notStored{err}
	}
	res, err := i.append(ctx, ev, state, how.SigningKey)
	if i.unavailable(err) && g.RequestHash == "" && i.journal != nil {
		return i.journalize(ev, state, how.SigningKey)
	}
	if errors.Is(err, receipt.ErrExists) {
		issued, err := i.existing(ctx, g, replay)
		if errors.Is(err, ErrReceiptExists) { // the id is another request's receipt
			return Issued{}, notStored{err}
		}
		return issued, err
	}
	if err != nil {
		return Issued{}, err
	}
	return Issued{State: state, Result: res}, nil
}

// append stores the generation with its webhook key: in the append's transaction where the event
// store shares the read models' database (GenerationAppender), else just before it.
func (i *Issuer) append(ctx context.Context, ev eventstore.EventData, state receipt.State, secret string) (eventstore.AppendResult, error) {
	id := state.Receipt.ReceiptID
	if secret == "" {
		return AppendGeneration(ctx, i.store, ev, state, nil)
	}
	if _, together := i.store.(GenerationAppender); !together {
		if err := i.keys.Save(ctx, id, secret); err != nil {
			return eventstore.AppendResult{}, notStored{err}
		}
		return AppendGeneration(ctx, i.store, ev, state, nil)
	}
	nonce, sealed, err := i.keys.Seal(id, secret)
	if err != nil {
		return eventstore.AppendResult{}, notStored{err}
	}
	return AppendGeneration(ctx, i.store, ev, state, &journal.SealedKey{ReceiptID: id, Nonce: nonce, Sealed: sealed})
}

// stored answers a replayed request with the receipt its key is bound to, when that is stored
// (ok); ok is false when it is not (yet): the first request may still be appending it, or may
// have failed to, and this one stores it. Deciding the generation again first made a replay fail
// where the first request had passed (its item's price since set to 0: a zero total). Errors:
// ErrReceiptExists (the id holds another request's receipt), wrapped store errors.
func (i *Issuer) stored(ctx context.Context, g receipt.Generated) (Issued, bool, error) {
	loaded, err := LoadReceipt(ctx, i.store, g.ReceiptID)
	if err != nil || !loaded.State.Exists {
		return Issued{}, false, err
	}
	if loaded.State.Receipt.RequestHash != g.RequestHash || loaded.State.Receipt.Merchant != g.Merchant {
		return Issued{}, true, ErrReceiptExists
	}
	return Issued{State: loaded.State, Replayed: true}, true, nil
}

// existing answers a generation whose receipt id is taken: the receipt an earlier request under
// the same Idempotency-Key created (a replay; for a caller-chosen id the key's binding names the
// same id whether it is new or not, so only this finds the replay), else a conflict.
func (i *Issuer) existing(ctx context.Context, g receipt.Generated, replay bool) (Issued, error) {
	if !replay && g.RequestHash == "" {
		return Issued{}, ErrReceiptExists
	}
	issued, ok, err := i.stored(ctx, g)
	if err == nil && !ok { // taken, yet not there: gone from the store between the two reads
		err = ErrReceiptExists
	}
	return issued, err
}

// journalize accepts a receipt while the datastore is down: its generation event ev (and sealed
// webhook key) is written durably to the local journal and replayed into the event store with
// the same ids when the datastore is back (journal.Replayer).
func (i *Issuer) journalize(ev eventstore.EventData, state receipt.State, secret string) (Issued, error) {
	id := state.Receipt.ReceiptID
	entry := journal.Entry{Stream: receipt.Stream(id), Events: []eventstore.EventData{ev}, At: i.now().UnixMilli()}
	if secret != "" {
		nonce, sealed, err := i.keys.Seal(id, secret)
		if err != nil {
			return Issued{}, err
		}
		entry = entry.WithSealedKey(journal.SealedKey{ReceiptID: id, Nonce: nonce, Sealed: sealed})
	}
	if err := i.journal.Append(entry); errors.Is(err, journal.ErrStreamPending) {
		return Issued{}, ErrReceiptExists // the id waits in the journal as another request's receipt
	} else if err != nil {
		return Issued{}, fmt.Errorf("degraded mode: journal write failed (%v): %w", err, ErrDatastoreUnavailable)
	}
	return Issued{State: state, Degraded: true}, nil
}

// Journaled returns the state of receipt id while it waits in this instance's journal (accepted
// in degraded mode, not stored yet), so that reading it right after the datastore is back does
// not say it does not exist.
func (i *Issuer) Journaled(id string) (receipt.State, bool) {
	if i.journal == nil {
		return receipt.State{}, false
	}
	e, ok := i.journal.Lookup(receipt.Stream(id))
	if !ok || len(e.Events) == 0 {
		return receipt.State{}, false
	}
	ev, err := receipt.Decode(e.Events[0].Type, e.Events[0].Data)
	if err != nil {
		return receipt.State{}, false
	}
	return receipt.Evolve(receipt.State{}, ev), true
}

// NewReceiptID is "rcpt_", the creation time in Unix milliseconds as 12 hex digits, and 64 random
// bits as 16: unguessable, and new receipts' keys (and streams) sort after older ones, so the
// indexes on them grow at their right edge instead of on random pages.
func NewReceiptID(now time.Time) string {
	var b [14]byte
	ms := uint64(now.UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i], ms = byte(ms), ms>>8
	}
	_, _ = rand.Read(b[6:])
	return "rcpt_" + hex.EncodeToString(b[:])
}
