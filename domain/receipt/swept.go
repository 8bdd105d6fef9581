package receipt

import (
	"fmt"
	"math/big"
	"strings"
)

// Rules of sweeping (DESIGN 9 "Sweeping"):
//   - DepositSwept records what one sweep transaction moved from the receipt's deposit address to
//     its split in one token; it never changes the status.
//   - A sweep is recorded once per (transaction, token), however often it is reported.
//   - The receipt's confirmed credits are swept when, for every token, what was recorded swept
//     covers what confirmed transfers brought (a sweep moves the whole balance, so it may cover
//     more). A later transfer makes the receipt unswept again until the next sweep.
//   - The split distributor pays out a receipt with a deposit address only once it is swept.

// EventDepositSwept is the type name of DepositSwept.
const EventDepositSwept = "DepositSwept"

// DepositSwept records that a sweep moved AmountUnits of Token from the deposit to its split.
type DepositSwept struct {
	TransactionHash string `json:"transactionHash"`
	Token           string `json:"token"`       // symbol: USDC, USDT, ETH, ...
	AmountUnits     string `json:"amountUnits"` // base units, a decimal integer
	BlockNumber     uint64 `json:"blockNumber"`
	At              int64  `json:"at"`
}

func (DepositSwept) eventType() string { return EventDepositSwept }

// Sweep is a recorded DepositSwept.
type Sweep struct {
	TransactionHash string `json:"transactionHash"`
	Token           string `json:"token"`
	AmountUnits     string `json:"amountUnits"`
	BlockNumber     uint64 `json:"blockNumber"`
}

// evolveSwept applies DepositSwept (Evolve's case): the sweep is kept; the status stays.
func (s *State) evolveSwept(e DepositSwept) {
	for _, w := range s.Sweeps {
		if strings.EqualFold(w.TransactionHash, e.TransactionHash) && w.Token == e.Token {
			return
		}
	}
	s.Sweeps = append(append([]Sweep(nil), s.Sweeps...),
		Sweep{TransactionHash: e.TransactionHash, Token: e.Token, AmountUnits: e.AmountUnits, BlockNumber: e.BlockNumber})
}

// Unswept is, per token, what confirmed credits brought beyond what was recorded swept; empty
// when the receipt's confirmed credits are swept (or it has none).
func (s State) Unswept() map[string]*big.Int {
	left := map[string]*big.Int{}
	add := func(token, units string, sign int) {
		n, ok := new(big.Int).SetString(units, 10)
		if !ok {
			return
		}
		if left[token] == nil {
			left[token] = new(big.Int)
		}
		if sign < 0 {
			n.Neg(n)
		}
		left[token].Add(left[token], n)
	}
	for _, c := range s.Credits {
		if c.Counts() {
			add(c.Token, c.AmountUnits, 1)
		}
	}
	for _, w := range s.Sweeps {
		add(w.Token, w.AmountUnits, -1)
	}
	for token, n := range left {
		if n.Sign() <= 0 {
			delete(left, token)
		}
	}
	return left
}

// Swept says whether the receipt's confirmed credits are all swept to its split.
func (s State) Swept() bool { return len(s.Unswept()) == 0 }

// RecordSweeps decides the DepositSwept events to record: those not recorded yet. Errors:
// ErrNotFound, ErrState (the receipt has no deposit address), ErrAmount (an amount is not a
// positive decimal integer, or a field is missing).
func RecordSweeps(s State, sweeps []DepositSwept) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	if s.DepositAddress() == "" {
		return nil, fmt.Errorf("%w: receipt %s has no deposit address", ErrState, s.Receipt.ReceiptID)
	}
	var out []Event
	next := s
	for _, e := range sweeps {
		n, ok := new(big.Int).SetString(e.AmountUnits, 10)
		if !ok || n.Sign() <= 0 || e.TransactionHash == "" || e.Token == "" {
			return nil, fmt.Errorf("%w: sweep %+v", ErrAmount, e)
		}
		before := len(next.Sweeps)
		next = Evolve(next, e)
		if len(next.Sweeps) > before {
			out = append(out, e)
		}
	}
	return out, nil
}
