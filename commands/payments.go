package commands

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/payledger/payledger/domain/failure"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// ChangeReceipt runs decide on a receipt's current state and appends the events it returns,
// retrying from a fresh load when another writer got there first. It returns the state after
// the events. Errors: decide's, receipt.ErrNotFound, wrapped store errors.
func ChangeReceipt(ctx context.Context, store Store, id string, meta eventstore.Metadata,
	decide func(receipt.State) ([]receipt.Event, error)) (receipt.State, eventstore.AppendResult, error) {
	var after receipt.State
	_, res, err := Execute(ctx, store, ReceiptStream(id), receiptAggregate, receipt.State{},
		func(l Loaded[receipt.State]) (Decision, error) {
			if !l.State.Exists {
				return nil, receipt.ErrNotFound
			}
			evs, err := decide(l.State)
			if err != nil {
				return nil, err
			}
			after = l.State
			for _, e := range evs {
				after = receipt.Evolve(after, e)
			}
			return receiptEvents(evs, meta)
		})
	return after, res, err
}

// receiptEvents are the decided receipt events as events to append, with meta.
func receiptEvents(evs []receipt.Event, meta eventstore.Metadata) (Decision, error) {
	out := make(Decision, len(evs))
	for i, e := range evs {
		var err error
		if out[i], err = NewEvent(newEventID(), receipt.TypeOf(e), e, meta); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Then chains two decisions: the second sees the state after the first's events.
func Then(s receipt.State, first []receipt.Event, err error, next func(receipt.State) ([]receipt.Event, error)) ([]receipt.Event, error) {
	if err != nil {
		return nil, err
	}
	for _, e := range first {
		s = receipt.Evolve(s, e)
	}
	more, err := next(s)
	if err != nil {
		return nil, err
	}
	return append(first, more...), nil
}

// ProcessorUpdate is a status report from the onramp processor, by signed event or its API.
type ProcessorUpdate struct {
	SessionID, AttemptID, Status, ErrorCode, RequestID, TransactionHash, Wallet string
	SourceAmountCents                                                           *int64
	SessionUnique                                                               bool
	At                                                                          int64 // Unix ms
}

// IsFailure reports a terminal failure status of the processor.
func (u ProcessorUpdate) IsFailure() bool {
	return u.Status == "rejected" || u.Status == "expired" || u.Status == "cancelled"
}

// DecideProcessorUpdate turns a processor report into receipt events through the guards. A
// report for a session the service did not start opens an attempt for it, unless it is a
// failure: a failure of an attempt the receipt does not know is ignored (and recorded).
func DecideProcessorUpdate(s receipt.State, u ProcessorUpdate) ([]receipt.Event, error) {
	attempt := u.AttemptID
	if attempt == "" {
		for id, a := range s.Attempts {
			if a.SessionID != "" && a.SessionID == u.SessionID {
				attempt = id
			}
		}
	}
	var opened []receipt.Event
	if _, known := s.Attempts[attempt]; !known && !u.IsFailure() {
		if attempt == "" {
			attempt = "att_" + u.SessionID
		}
		evs, err := receipt.StartAttempt(s, receipt.AttemptStarted{AttemptID: attempt, Kind: "onramp", SessionID: u.SessionID,
			SessionUnique: u.SessionUnique, OpenedBy: "processor", At: u.At})
		if err == nil {
			opened = evs
		}
	}
	if attempt == "" {
		attempt = "session:" + u.SessionID
	}
	return Then(s, opened, nil, func(s receipt.State) ([]receipt.Event, error) {
		switch u.Status {
		case "fulfillment_processing":
			return receipt.Submit(s, receipt.PaymentSubmitted{AttemptID: attempt, Source: "processor", At: u.At})
		case "ach_pending":
			return receipt.AcceptACH(s, receipt.ACHAccepted{AttemptID: attempt, At: u.At})
		case "fulfillment_complete":
			return receipt.Confirm(s, receipt.PaymentConfirmed{AttemptID: attempt, TransactionHash: strings.ToLower(u.TransactionHash),
				BuyerWallet: strings.ToLower(u.Wallet), Token: "USDC", SourceAmountCents: u.SourceAmountCents, VerifiedBy: "processor", At: u.At})
		case "rejected", "expired", "cancelled":
			c := failure.FromProcessor(u.Status, u.ErrorCode)
			return receipt.Fail(s, receipt.PaymentFailed{AttemptID: attempt, Code: c.Code, Category: c.Category, Reason: c.Description,
				Action: c.Action, ProviderErrorCode: u.ErrorCode, ProviderRequestID: u.RequestID, At: u.At})
		}
		return nil, nil
	})
}

// PaymentTokens are the tokens a receipt can be paid or quoted in.
var PaymentTokens = []string{"ETH", "USDC", "USDT", "cbBTC", "cbXRP"}

// ProcessorStatuses are the session statuses of the onramp processor (DESIGN.md section 6).
var ProcessorStatuses = []string{"fulfillment_processing", "ach_pending", "fulfillment_complete", "rejected", "expired", "cancelled"}

var (
	txHashRE = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	walletRE = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
)

// Messages of the shape rules that several payment commands share.
const (
	msgTxHash = "transactionHash must be 0x followed by 64 hex characters"
	msgAmount = "amountUsd must be a positive amount with at most 2 decimals"
)

// newAttemptID names a new payment attempt.
func newAttemptID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "att_" + hex.EncodeToString(b[:])
}

// dollarsToCents reads a USD amount ("" for none), rounding half-up to the cent.
func dollarsToCents(n string) (*int64, error) {
	if n == "" {
		return nil, nil
	}
	r, ok := new(big.Rat).SetString(n)
	if !ok || r.Sign() < 0 {
		return nil, fmt.Errorf("invalid amount %q", n)
	}
	c := int64(money.RoundHalfUp(r.Mul(r, big.NewRat(100, 1))))
	return &c, nil
}

// numberText is n's text, "" for none.
func numberText(n *json.Number) string {
	if n == nil {
		return ""
	}
	return n.String()
}
