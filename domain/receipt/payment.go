package receipt

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// statuses from which a new attempt may start and a payment may be under way.
var open = []Status{StatusGenerated, StatusPending, StatusFailed}

// settled statuses: a verified payment exists.
var settled = []Status{StatusPaid, StatusReconciled, StatusRefundRequested, StatusRefunded}

// TelemetryEvents are the browser reports accepted from checkout; onramp_* is a prefix.
var TelemetryEvents = []string{"link_opened", "checkout_initialized", "checkout_success", "checkout_closed", "error"}

// ValidTelemetry reports whether name is a known telemetry event.
func ValidTelemetry(name string) bool {
	return slices.Contains(TelemetryEvents, name) || (strings.HasPrefix(name, "onramp_") && len(name) > len("onramp_") && len(name) <= 64)
}

func must(s State) error {
	if !s.Exists {
		return ErrNotFound
	}
	return nil
}

// CanStartAttempt reports whether a payment attempt may start on the receipt now, so a caller
// can check before it asks a processor for a session. Errors: ErrNotFound, ErrState (the receipt
// is being settled, paid, or beyond).
func CanStartAttempt(s State) error {
	if err := must(s); err != nil {
		return err
	}
	if !slices.Contains(open, s.Status) {
		return fmt.Errorf("%w: a payment cannot start while the receipt is %s", ErrState, s.Status)
	}
	if s.Expired() {
		return errWindowEnded(s)
	}
	return nil
}

// StartAttempt opens a payment attempt. Errors: ErrNotFound, ErrState (the receipt is being
// settled, paid, or beyond).
func StartAttempt(s State, a AttemptStarted) ([]Event, error) {
	if err := CanStartAttempt(s); err != nil {
		return nil, err
	}
	if _, exists := s.Attempts[a.AttemptID]; exists {
		return nil, nil
	}
	return []Event{a}, nil
}

// RecordTelemetry records a browser report; it never changes status. Errors: ErrNotFound.
func RecordTelemetry(s State, t TelemetryRecorded) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	return []Event{t}, nil
}

// Submit marks a payment of the current attempt as under way (pending). A report for another
// attempt, after the payment was accepted, or of the attempt the receipt failed on (a late,
// out-of-order report: only a new attempt moves a failed receipt on), changes nothing.
func Submit(s State, p PaymentSubmitted) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	if p.AttemptID != s.CurrentAttempt || !slices.Contains(open, s.Status) || s.Status == StatusPending && p.Source == "processor" || s.Expired() ||
		s.failedOn(p.AttemptID) {
		return nil, nil
	}
	return []Event{p}, nil
}

// AcceptACH marks an ACH payment of the current attempt accepted, settlement pending; not of the
// attempt the receipt failed on (as Submit).
func AcceptACH(s State, a ACHAccepted) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	if a.AttemptID != s.CurrentAttempt || !slices.Contains(open, s.Status) || s.Expired() || s.failedOn(a.AttemptID) {
		return nil, nil
	}
	return []Event{a}, nil
}

// failedOn reports whether the receipt is failed by a failure of attempt.
func (s State) failedOn(attempt string) bool {
	return s.Status == StatusFailed && s.Failure != nil && s.Failure.AttemptID == attempt
}

// Confirm records a verified payment. It wins from generated, pending, ach_pending and failed;
// once paid (or beyond) a repeat changes nothing, except that the chain confirming again the
// transaction a deep reorg withdrew restores it (PaymentRestored).
func Confirm(s State, c PaymentConfirmed) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	if s.ChainWithdrawnTx != "" && c.VerifiedBy == "chain" && strings.EqualFold(c.TransactionHash, s.ChainWithdrawnTx) {
		return []Event{PaymentRestored{AttemptID: c.AttemptID, TransactionHash: s.ChainWithdrawnTx, BlockNumber: c.BlockNumber,
			BlockHash: c.BlockHash, At: c.At}}, nil
	}
	if slices.Contains(settled, s.Status) {
		return nil, nil
	}
	if c.VerifiedBy == "" {
		return nil, fmt.Errorf("%w: a payment is confirmed only by a verified source", ErrState)
	}
	if s.Expired() {
		return confirmExpired(s, c)
	}
	c.PaidLate = false // only the end of the payment window makes a payment late (window.go)
	return []Event{c}, nil
}

// Fail applies a server-verified failure when the receipt is generated or pending and its
// current attempt is the failure's; otherwise it records why the failure was ignored. A repeat of
// the failure that already applied changes nothing.
func Fail(s State, f PaymentFailed) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	ignore := func(why string) ([]Event, error) {
		return []Event{FailureIgnored{AttemptID: f.AttemptID, Code: f.Code, ProviderErrorCode: f.ProviderErrorCode, Why: why, StatusAtArrival: s.Status, At: f.At}}, nil
	}
	switch {
	case s.Status == StatusFailed && s.Failure != nil && s.Failure.AttemptID == f.AttemptID:
		return nil, nil
	case s.ChainWithdrawnTx != "" && s.Payment != nil && s.Payment.AttemptID == f.AttemptID && slices.Contains(settled, s.Status):
		return nil, nil // the flagged payment's attempt: the chain does not show it, whatever else it says of it
	case s.CurrentAttempt == "" || f.AttemptID != s.CurrentAttempt:
		return ignore("the failure belongs to another payment attempt than the current one")
	case s.Status != StatusGenerated && s.Status != StatusPending:
		return ignore("a failure never replaces a receipt that is " + string(s.Status))
	}
	return []Event{f}, nil
}

// DistributeSplit marks a paid receipt reconciled. Errors: ErrNotFound, ErrState, ErrWithdrawn
// (its funds never reached the split as far as the chain now shows).
func DistributeSplit(s State, d SplitDistributed) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	if s.Status == StatusReconciled {
		return nil, nil
	}
	if s.Status != StatusPaid {
		return nil, fmt.Errorf("%w: only a paid receipt is reconciled, this one is %s", ErrState, s.Status)
	}
	if s.ChainWithdrawnTx != "" {
		return nil, ErrWithdrawn
	}
	return []Event{d}, nil
}

// Unrefunded is what can still be refunded of the order (OrderUnrefunded: funds returned before a
// late payment do not count against it, stop 69).
func (s State) Unrefunded() int64 { return s.OrderUnrefunded() }

// Quote prices the receipt in token with the given exact USD prices (eurUSD for EUR receipts)
// and returns the event that records the quote with the rates it used. Errors: ErrNotFound,
// ErrState (nothing left to pay).
func Quote(s State, token, tokenUSD, eurUSD string, at int64) (TokenQuoted, error) {
	if err := must(s); err != nil {
		return TokenQuoted{}, err
	}
	if slices.Contains(settled, s.Status) || s.Status == StatusACHPending {
		return TokenQuoted{}, fmt.Errorf("%w: the receipt is %s", ErrState, s.Status)
	}
	usd := new(big.Rat).SetFrac64(int64(s.Receipt.Total), 100)
	if s.Receipt.Currency == "EUR" {
		r, ok := new(big.Rat).SetString(eurUSD)
		if !ok || r.Sign() <= 0 {
			return TokenQuoted{}, fmt.Errorf("%w: no EUR/USD rate", ErrAmount)
		}
		usd.Mul(usd, r)
	}
	price, ok := new(big.Rat).SetString(tokenUSD)
	if !ok || price.Sign() <= 0 {
		return TokenQuoted{}, fmt.Errorf("%w: no price for %s", ErrAmount, token)
	}
	amount := new(big.Rat).Quo(usd, price)
	return TokenQuoted{Token: token, Amount: amount.FloatString(8), TokenUSDPrice: tokenUSD, EURUSDRate: eurUSD,
		AmountUSD: usd.FloatString(2), At: at}, nil
}

// evolvePayment applies an attempt, its submission, verification or failure, or a quote
// (Evolve's cases).
func (s *State) evolvePayment(e Event) {
	switch e := e.(type) {
	case AttemptStarted:
		s.withAttempt(Attempt{ID: e.AttemptID, Kind: e.Kind, SessionID: e.SessionID, SessionUnique: e.SessionUnique, OpenedBy: e.OpenedBy, StartedAt: e.At})
		s.CurrentAttempt = e.AttemptID
		s.countAttempt(e)
	case PaymentSubmitted:
		if a, ok := s.Attempts[e.AttemptID]; ok {
			a.Token, a.TransactionHash, a.BuyerWallet = e.Token, e.TransactionHash, e.BuyerWallet
			s.withAttempt(a)
		}
		s.setStatus(StatusPending, e.At)
	case ACHAccepted:
		s.setStatus(StatusACHPending, e.At)
	case PaymentConfirmed:
		s.Payment, s.SettledStatus = paymentOf(e), StatusPaid
		s.setStatus(StatusPaid, e.At)
	case PaymentFailed:
		f := Failure(e)
		s.Failure = &f
		s.setStatus(StatusFailed, e.At)
	case TokenQuoted:
		// Never a change of status: it records what the customer was quoted and at which rate.
		s.QuotedToken = e.Token
		s.holdQuote(e)
		s.QuotesRecorded = s.QuotesRecorded.add(e.At) // limits.go
		s.withQuote(e.Token, e.Amount)
		if e.EURUSDRate != "" {
			s.EURUSDRate = e.EURUSDRate
		}
	}
}

// evolveWithdrawal applies an ignored failure or a restored payment (Evolve's cases): the
// chain's withdrawal of the paying transaction flags the receipt until PaymentRestored.
func (s *State) evolveWithdrawal(e Event) {
	switch e := e.(type) {
	case FailureIgnored:
		// Recorded for auditors; never a change of status.
		if e.Code == CodeChainWithdrawn && s.Payment != nil && s.Payment.TransactionHash != "" {
			s.ChainWithdrawnTx = s.Payment.TransactionHash
		}
	case PaymentRestored:
		s.ChainWithdrawnTx = ""
		if s.Payment != nil {
			p := *s.Payment
			p.BlockNumber, p.BlockHash = e.BlockNumber, e.BlockHash
			s.Payment = &p
		}
	}
}

// evolveSettlement applies a split distribution (Evolve's case); refunds are refund.go's.
func (s *State) evolveSettlement(e Event) {
	switch e := e.(type) {
	case SplitDistributed:
		s.SplitTxHash, s.SplitAt, s.SettledStatus = e.TransactionHash, e.At, StatusReconciled
		if s.SplitTxHash == "" && len(e.TransactionHashes) > 0 {
			s.SplitTxHash = e.TransactionHashes[0]
		}
		s.setStatus(StatusReconciled, e.At)
	}
}

// paymentOf is the verified payment a confirmation records.
func paymentOf(e PaymentConfirmed) *Payment {
	p := Payment{AttemptID: e.AttemptID, TransactionHash: e.TransactionHash, BuyerWallet: e.BuyerWallet, Token: e.Token,
		VerifiedBy: e.VerifiedBy, Method: e.Method, BlockNumber: e.BlockNumber, BlockHash: e.BlockHash, PaidLate: e.PaidLate, At: e.At}
	if e.SourceAmountCents != nil {
		c := money.Cents(*e.SourceAmountCents)
		p.SourceAmount = &c
	}
	return &p
}
