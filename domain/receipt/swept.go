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
//   - The receipt's confirmed credits are swept when, for every token, nothing is unswept
//     (Unswept): what confirmed transfers brought beyond what was recorded swept, and at least
//     what confirmed transfers mined after the token's latest recorded sweep brought. A sweep
//     moves the deposit's whole balance, dust included (dust_transfers.go), so the recorded
//     sweeps may exceed the credits; a later transfer still makes the receipt unswept until the
//     next sweep.
//   - The split distributor pays out a receipt with a deposit address only once it is swept.

// EventDepositSwept is the type name of DepositSwept.
const EventDepositSwept = "DepositSwept"

// DepositSwept records that a sweep moved AmountUnits of Token from the deposit to its split.
type DepositSwept struct {
	TransactionHash string `json:"transactionHash"`
	Token           string `json:"token"`       // symbol: USDC, USDT, ETH, ...
	AmountUnits     string `json:"amountUnits"` // base units, a decimal integer
	BlockNumber     uint64 `json:"blockNumber"`
	// LogIndex is the sweep's Swept event's log index in its block (stop 69); nil in events
	// recorded before, or when the chain did not say.
	LogIndex *int `json:"logIndex,omitempty"`
	// TxIndex is the sweep transaction's index in its block (stop 70); nil in events recorded
	// before, or when the chain did not say. ETH credits in that block are placed by it.
	TxIndex *int  `json:"txIndex,omitempty"`
	At      int64 `json:"at"`
}

func (DepositSwept) eventType() string { return EventDepositSwept }

// Sweep is a recorded DepositSwept.
type Sweep struct {
	TransactionHash string `json:"transactionHash"`
	Token           string `json:"token"`
	AmountUnits     string `json:"amountUnits"`
	BlockNumber     uint64 `json:"blockNumber"`
	LogIndex        *int   `json:"logIndex,omitempty"` // nil: not known
	TxIndex         *int   `json:"txIndex,omitempty"`  // nil: not known
}

// evolveSwept applies DepositSwept (Evolve's case): the sweep is kept; the status stays.
func (s *State) evolveSwept(e DepositSwept) {
	for _, w := range s.Sweeps {
		if strings.EqualFold(w.TransactionHash, e.TransactionHash) && w.Token == e.Token {
			return
		}
	}
	s.Sweeps = append(append([]Sweep(nil), s.Sweeps...),
		Sweep{TransactionHash: e.TransactionHash, Token: e.Token, AmountUnits: e.AmountUnits, BlockNumber: e.BlockNumber, LogIndex: e.LogIndex, TxIndex: e.TxIndex})
}

// Unswept is, per token, what confirmed credits hold at the deposit not yet swept: the larger of
// what they brought beyond what was recorded swept, and what those mined after the token's latest
// recorded sweep brought. Empty when the receipt's confirmed credits are swept (or it has none).
//
// A sweep moves the deposit's whole balance (Deposit.sol's flushToken/flushETH), dust and
// uncredited transfers with it, so the recorded sweeps can exceed the credits. Counting only
// credits less sweeps, a later credited transfer no larger than that excess looked swept already
// and stayed at the deposit: the sweeper never claimed it, and the split distributor paid the
// receipt out without it. A transfer mined after the latest sweep cannot have been moved by any
// recorded sweep, so it is unswept whatever the excess. Neither figure exceeds what the deposit
// holds once every sweep of it on chain is recorded (each emptied it): a deposit swept empty is
// never unswept, so the sweeper does not sweep it again and again, nor does the distributor
// wait for it.
//
// "After" is by block, and inside the latest sweep's own block by log index (stop 69): a token
// transfer whose Transfer log comes after the sweep's Swept event was mined after the flush. An
// ETH credit (no log: ETHLogIndex) in that block is placed by its transaction's index against the
// sweep's (stop 70). A balance credit (deposit_balance.go) is ETH the deposit held at the end of
// its block, beyond what the credits still held there: after every sweep of that block (stop 71;
// before, it counted by the difference, and ETH a contract sent after a sweep that had moved dust
// looked swept). A sweep recorded without its log index (before stop 69) or, for ETH, without
// its transaction index (before stop 70), and an ETH credit recorded without one, count by the
// difference only: taken as after it, a transfer the sweep moved would keep the receipt unswept
// for good.
func (s State) Unswept() map[string]*big.Int {
	credited, swept, after := map[string]*big.Int{}, map[string]*big.Int{}, map[string]*big.Int{}
	latest := map[string]sweepPlace{}
	for _, w := range s.Sweeps {
		addUnits(swept, w.Token, w.AmountUnits)
		latest[w.Token] = latest[w.Token].later(w)
	}
	for _, c := range s.Credits {
		if !c.Counts() {
			continue
		}
		addUnits(credited, c.Token, c.AmountUnits)
		if latest[c.Token].before(c) {
			addUnits(after, c.Token, c.AmountUnits)
		}
	}
	left := map[string]*big.Int{}
	for token, n := range credited {
		if w := swept[token]; w != nil {
			n.Sub(n, w)
		}
		if a := after[token]; a != nil && a.Cmp(n) > 0 {
			n = a
		}
		if n.Sign() > 0 {
			left[token] = n
		}
	}
	return left
}

// sweepPlace is where a token's latest recorded sweep is on the chain: its block (0: none, or
// recorded without one), its Swept event's log index and its transaction's index (-1: not known).
type sweepPlace struct {
	block   uint64
	log, tx int
}

// later is the later of p and sweep w's place; of two sweeps in one block, one whose log index
// is not known counts as the later (nothing in that block is then taken as after it).
func (p sweepPlace) later(w Sweep) sweepPlace {
	q := sweepPlace{block: w.BlockNumber, log: -1, tx: -1}
	if w.LogIndex != nil {
		q.log = *w.LogIndex
	}
	if w.TxIndex != nil {
		q.tx = *w.TxIndex
	}
	switch {
	case p.block == 0 && p.log == 0 || q.block > p.block:
		return q
	case q.block == p.block && (q.log < 0 || p.log >= 0 && q.log > p.log):
		return q
	}
	return p
}

// before says whether credit c was mined after the sweep at p: in a later block, or in its block
// with a Transfer log after the sweep's Swept event, or (ETH, no log) in a transaction after the
// sweep's. A sweep without its block (0) marks no "after": every credit would be after it.
func (p sweepPlace) before(c Credit) bool {
	switch {
	case p.block == 0 || c.BlockNumber < p.block:
		return false
	case c.BlockNumber > p.block:
		return true
	case c.isBalance():
		return true // the deposit's balance at the end of its block: after every sweep in it
	case p.log >= 0 && c.LogIndex >= 0:
		return c.LogIndex > p.log
	case c.LogIndex == ETHLogIndex && p.tx >= 0 && c.TxIndex != nil:
		return *c.TxIndex > p.tx
	}
	return false
}

// addUnits adds the decimal base units to sums[token]; units that are not a number add nothing.
func addUnits(sums map[string]*big.Int, token, units string) {
	n, ok := new(big.Int).SetString(units, 10)
	if !ok {
		return
	}
	if sums[token] == nil {
		sums[token] = new(big.Int)
	}
	sums[token].Add(sums[token], n)
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
