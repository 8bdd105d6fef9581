package receipt

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/money"
)

// The amounts as State computed them before stop 73's running sums, credit by credit: the
// reference every fold's amounts must equal.

func refRequestedToken(s State) string {
	if c, ok := refFirstCredit(s); ok {
		if _, err := s.requiredIn(c.Token); err == nil {
			return strings.ToUpper(c.Token)
		}
	}
	if q := strings.ToUpper(s.QuotedToken); q != "" && !IsStable(q) {
		if _, err := s.requiredIn(q); err == nil {
			return q
		}
	}
	return "USDC"
}

func refFirstCredit(s State) (Credit, bool) {
	for _, c := range s.Credits {
		if !c.Dropped {
			return c, true
		}
	}
	return Credit{}, false
}

func refAmountRequired(s State) string {
	token := refRequestedToken(s)
	r, err := s.requiredIn(token)
	if err != nil {
		return ""
	}
	return decimalString(r.Amount, IsStable(token))
}

func refAmountReceived(s State) string {
	if len(s.Credits) == 0 {
		return ""
	}
	token := refRequestedToken(s)
	want, err := s.requiredIn(token)
	if err != nil {
		return ""
	}
	sum := new(big.Rat)
	for _, c := range s.Credits {
		if !c.Counts() {
			continue
		}
		r, err := s.requiredIn(c.Token)
		units, ok := new(big.Int).SetString(c.AmountUnits, 10)
		if err != nil || !ok {
			continue
		}
		amount := new(big.Rat).SetFrac(units, money.Pow10(c.Decimals))
		switch {
		case IsStable(token) && IsStable(strings.ToUpper(c.Token)):
		case r.Amount.Sign() <= 0:
			continue
		default:
			amount.Mul(amount, new(big.Rat).Quo(want.Amount, r.Amount))
		}
		sum.Add(sum, amount)
	}
	return decimalString(sum, IsStable(token))
}

// mixedTokens is evs with the tokens, amounts and quotes drawn by rng: tokens in any case, one
// no quote prices (DAI), units that are no integer, quotes of ETH changing and of zero, so that
// every branch of the amounts meets drops and reorgs that lower them.
func mixedTokens(rng *rand.Rand, evs []Event) []Event {
	out := make([]Event, 0, len(evs))
	for _, e := range evs {
		switch x := e.(type) {
		case DepositTransferSeen:
			if x.LogIndex >= 0 {
				x.Token = []string{"USDC", "usdc", "USDT", "DAI", "Eth"}[rng.IntN(5)]
				x.Decimals = []uint8{6, 6, 6, 18, 18}[rng.IntN(5)]
			}
			if rng.IntN(15) == 0 {
				x.AmountUnits = "1e3"
			}
			e = x
		case TokenQuoted:
			x.Amount = []string{"0.005", "0.004", "0", "0.0061"}[rng.IntN(4)]
			if rng.IntN(4) == 0 {
				x.Token = "USDT"
			}
			e = x
		}
		out = append(out, e)
	}
	return out
}

// TestFolderAmountsAreTheStates (stop 73): after every event of the fold's streams (the credit
// stream of every kind, random sightings, moves, drops and confirmations with mixed tokens and
// quotes), the folder's RequestedToken, AmountRequired and AmountReceived, read from its running
// sums, are those the state computes credit by credit, as they were before; so is State's own
// (now a sum by token); also after the folder hands its state out (State) and folds on.
func TestFolderAmountsAreTheStates(t *testing.T) {
	t.Parallel()
	streams := [][]Event{foldStream(300)}
	for seed := range uint64(150) {
		rng := rand.New(rand.NewPCG(seed, 731))
		streams = append(streams, randomCreditEvents(rng, 80), mixedTokens(rng, randomCreditEvents(rng, 80)), mixedTokens(rng, foldStream(40)))
	}
	for n, evs := range streams {
		f, want := NewFolder(State{}), State{}
		for i, e := range evs {
			f.Apply(e)
			want = Evolve(want, e)
			if i%17 == 16 {
				_ = f.State() // handed out: the next change copies, and the sums are kept again
			}
			got := [3]string{f.RequestedToken(), f.AmountRequired(), f.AmountReceived()}
			ref := [3]string{refRequestedToken(want), refAmountRequired(want), refAmountReceived(want)}
			if got != ref {
				t.Fatalf("stream %d, event %d (%T): folder's token, required, received %q, want %q (credits %+v)", n, i, e, got, ref, want.Credits)
			}
			if st := [3]string{want.RequestedToken(), want.AmountRequired(), want.AmountReceived()}; st != ref {
				t.Fatalf("stream %d, event %d (%T): state's token, required, received %q, want %q", n, i, e, st, ref)
			}
		}
	}
}

// TestFolderAmountsOfAReceiptThatDropsItsFirstCredits (stop 73): the requested token follows the
// first credit not dropped as the front credits drop, come back and drop again (the heap's stale
// entries), and the amount falls with each drop.
func TestFolderAmountsOfAReceiptThatDropsItsFirstCredits(t *testing.T) {
	t.Parallel()
	evs := []Event{depositReceipt().Receipt, TokenQuoted{Token: "ETH", Amount: "0.005", At: 2}}
	eth := transfer("0xe", "ETH", "5000000000000000", 18, "0xb1")
	usdc := transfer("0xu", "USDC", "12310000", 6, "0xb2")
	evs = append(evs, eth, confirmed(eth), usdc, confirmed(usdc), DepositTransferDropped{TransactionHash: "0xe", LogIndex: ETHLogIndex, BlockHash: "0xb1"})
	eth.BlockHash = "0xb3"
	evs = append(evs, eth, DepositTransferDropped{TransactionHash: "0xE", LogIndex: ETHLogIndex, BlockHash: "0xb3"},
		DepositTransferDropped{TransactionHash: "0xu", LogIndex: 0, BlockHash: "0xb2"})
	f, want := NewFolder(State{}), State{}
	var tokens []string
	for i, e := range evs {
		f.Apply(e)
		want = Evolve(want, e)
		if got, ref := f.RequestedToken()+" "+f.AmountReceived(), refRequestedToken(want)+" "+refAmountReceived(want); got != ref {
			t.Fatalf("event %d (%T): %q, want %q", i, e, got, ref)
		}
		tokens = append(tokens, f.RequestedToken()+" "+f.AmountReceived())
	}
	if last := tokens[len(tokens)-1]; last != "ETH 0" || tokens[5] != "ETH 0.01" || tokens[6] != "USDC 12.31" {
		t.Fatalf("amounts %q: the drops did not move the requested token or lower the amount", tokens)
	}
}

func confirmed(s DepositTransferSeen) DepositTransferConfirmed {
	return DepositTransferConfirmed{TransactionHash: s.TransactionHash, LogIndex: s.LogIndex, BlockNumber: s.BlockNumber, BlockHash: s.BlockHash}
}

// TestFolderAmountsCostNoCredits (stop 73): reading a folder's amounts allocates the same for a
// receipt of 4,000 counted credits as for one of 40 (State's sum allocated per credit).
func TestFolderAmountsCostNoCredits(t *testing.T) {
	allocs := func(n int) float64 {
		f := NewFolder(State{})
		f.Apply(depositReceipt().Receipt)
		f.Apply(TokenQuoted{Token: "ETH", Amount: "0.005", At: 2})
		for i := range n {
			s := transfer(fmt.Sprintf("0x%x", i), []string{"USDC", "ETH"}[i%2], "1000", []uint8{6, 18}[i%2], "0xb")
			f.Apply(s)
			f.Apply(confirmed(s))
		}
		return testing.AllocsPerRun(20, func() { _, _ = f.AmountRequired(), f.AmountReceived() })
	}
	// A few more are allowed: the sums of 4,000 credits are bigger numbers, and formatting them may
	// take a word or two more (CI read 84 against 83). A read over the credits allocates thousands.
	if few, many := allocs(40), allocs(4000); many > few+10 {
		t.Fatalf("reading the amounts allocates %v times for 4,000 credits, %v for 40", many, few)
	}
}
