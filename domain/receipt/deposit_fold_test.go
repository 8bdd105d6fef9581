package receipt

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// foldStream is a receipt's stream with n credits of every kind the fold tells apart: token
// transfers confirmed, dropped and seen again in another block, moved by a reorg to another log
// index (upper-case hashes among them), ETH by transaction (some dropped for good, held by a later
// balance credit), balance credits, a quote, a sweep and a payment between them.
func foldStream(n int) []Event {
	evs := []Event{depositReceipt().Receipt, TokenQuoted{Token: "ETH", Amount: "0.005", At: 2}}
	for i := range n {
		b := fmt.Sprintf("0xb%d", i)
		tx := fmt.Sprintf("0x%064x", i)
		if i%7 == 3 {
			tx = strings.ToUpper(tx[:2]) + strings.ToUpper(tx[2:])
		}
		s := DepositTransferSeen{TransactionHash: tx, LogIndex: i % 3, BlockNumber: uint64(10 + i), BlockHash: b, Sender: "0xB",
			Token: "USDC", AmountUnits: "1000", Decimals: 6, At: int64(i)}
		switch i % 5 {
		case 1: // ETH by transaction
			s.LogIndex, s.Token, s.Decimals = ETHLogIndex, "ETH", 18
		case 2: // a balance credit
			s.LogIndex, s.TransactionHash, s.Token, s.Decimals, s.Senders = -2, b, "ETH", 18, []string{"0xD"}
		}
		evs = append(evs, s)
		switch i % 4 {
		case 0:
			evs = append(evs, confirmedOf(s))
		case 1: // dropped, then seen again (moved, for a token transfer) in another block
			evs = append(evs, DepositTransferDropped{TransactionHash: strings.ToLower(s.TransactionHash), LogIndex: s.LogIndex, BlockHash: b})
			s.BlockHash, s.BlockNumber = b+"r", s.BlockNumber+1
			if s.LogIndex >= 0 {
				s.LogIndex += 3
			}
			evs = append(evs, s, confirmedOf(s))
		case 2: // dropped under another block's hash: nothing
			evs = append(evs, DepositTransferDropped{TransactionHash: s.TransactionHash, LogIndex: s.LogIndex, BlockHash: "0xother"})
		case 3: // dropped for good: a later balance credit holds it (HeldBy)
			evs = append(evs, DepositTransferDropped{TransactionHash: s.TransactionHash, LogIndex: s.LogIndex, BlockHash: b})
		}
		if i == n/2 {
			evs = append(evs, DepositSwept{TransactionHash: "0xs", Token: "USDC", AmountUnits: "1000", BlockNumber: uint64(10 + i)})
		}
		if i == n-2 {
			evs = append(evs, chainPayment(Credit{TransactionHash: tx, LogIndex: s.LogIndex, Token: s.Token, AmountUnits: "1000"}, 9))
		}
	}
	return evs
}

func confirmedOf(s DepositTransferSeen) DepositTransferConfirmed {
	return DepositTransferConfirmed{TransactionHash: s.TransactionHash, LogIndex: s.LogIndex, BlockNumber: s.BlockNumber, BlockHash: s.BlockHash}
}

// evolveAll is the fold event by event, as before stop 72.
func evolveAll(s State, evs []Event) State {
	for _, e := range evs {
		s = Evolve(s, e)
	}
	return s
}

// TestFolderFoldsAsEvolve (stop 72): a Folder's state is Evolve's after every event, and a state
// it hands out is never changed by its later events (copy-on-write once shared).
func TestFolderFoldsAsEvolve(t *testing.T) {
	t.Parallel()
	evs := foldStream(200)
	want := State{}
	f := NewFolder(State{})
	var handed []State
	for i, e := range evs {
		want = Evolve(want, e)
		f.Apply(e)
		if i%17 == 0 {
			handed = append(handed, f.State(), evolveAll(State{}, evs[:i+1]))
		}
	}
	if got := f.State(); !reflect.DeepEqual(got, want) {
		t.Fatalf("folded state differs from Evolve's:\n got %d credits %+v\nwant %d credits %+v", len(got.Credits), got.Credits, len(want.Credits), want.Credits)
	}
	for i := 0; i < len(handed); i += 2 {
		if !reflect.DeepEqual(handed[i], handed[i+1]) {
			t.Fatalf("a state handed out after %d events was changed by later events", i/2*17+1)
		}
	}
	if got := Fold(depositReceipt(), evs[1:]...); !reflect.DeepEqual(got, want) {
		t.Fatal("Fold from a state differs from Evolve's")
	}
	moved, held := 0, 0
	for _, c := range want.Credits {
		if c.LogIndex >= 3 {
			moved++
		}
		if c.HeldBy != "" {
			held++
		}
	}
	if moved == 0 || held == 0 || len(want.Credits) < 150 || want.Status != StatusPaid {
		t.Fatalf("the stream tells nothing apart: %d credits, %d moved, %d held, %s", len(want.Credits), moved, held, want.Status)
	}
}

// BenchmarkReplayCredits (stop 72): the replay of a stream of 5,000 credits (about 12,000
// events), event by event with Evolve (each change copies the credits and scans for its own: as
// every fold was before stop 72) and with a Folder.
func BenchmarkReplayCredits(b *testing.B) {
	evs := foldStream(5000)
	b.Run("Evolve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			evolveAll(State{}, evs)
		}
	})
	b.Run("Folder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Fold(State{}, evs...)
		}
	})
}
