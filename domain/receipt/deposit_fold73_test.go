package receipt

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// randomCreditEvents are n events drawn by rng over a few transactions, log indices and blocks,
// so that sightings, moves, drops, confirmations and balance credits meet on the same credits in
// any order (also orders the detector never appends: the fold must still equal Evolve's).
func randomCreditEvents(rng *rand.Rand, n int) []Event {
	evs := []Event{depositReceipt().Receipt}
	for range n {
		tx := fmt.Sprintf("0x%x", rng.IntN(6))
		if rng.IntN(4) == 0 {
			tx = fmt.Sprintf("0X%X", rng.IntN(6)) // the same transaction in upper case
		}
		li := []int{0, 1, 2, ETHLogIndex, -2, -3}[rng.IntN(6)]
		block := fmt.Sprintf("0xb%d", rng.IntN(3))
		switch k := rng.IntN(10); {
		case k < 4:
			s := DepositTransferSeen{TransactionHash: tx, LogIndex: li, BlockNumber: uint64(rng.IntN(9)), BlockHash: block, Sender: "0xB",
				Token: "USDC", AmountUnits: fmt.Sprint(1 + rng.IntN(5000)), Decimals: 6, At: int64(len(evs))}
			if li < 0 {
				s.Token, s.Decimals = "ETH", 18
			}
			if li < ETHLogIndex {
				s.TransactionHash, s.Senders = block, []string{fmt.Sprintf("0xd%d", rng.IntN(3))}
			}
			evs = append(evs, s)
		case k < 6:
			evs = append(evs, DepositTransferConfirmed{TransactionHash: tx, LogIndex: li, BlockNumber: uint64(rng.IntN(9)), BlockHash: block})
		case k < 9:
			evs = append(evs, DepositTransferDropped{TransactionHash: tx, LogIndex: li, BlockHash: block})
		default:
			evs = append(evs, TokenQuoted{Token: "ETH", Amount: "0.005", At: int64(len(evs))})
		}
	}
	return evs
}

// TestFolderSplitFoldsAsEvolve (stop 73): for random event sequences, the state folded up to
// any position and then folded on from there by a new Folder (the pipeline's retry: a state
// loaded and decided on, then brought up to date by the events appended since) is Evolve's of
// the whole sequence; and the state handed out at the split is not changed by the fold on.
func TestFolderSplitFoldsAsEvolve(t *testing.T) {
	t.Parallel()
	for seed := range uint64(120) {
		evs := randomCreditEvents(rand.New(rand.NewPCG(seed, 73)), 60)
		want := State{}
		prefix := make([]State, len(evs)+1)
		for i, e := range evs {
			prefix[i] = want
			want = Evolve(want, e)
		}
		prefix[len(evs)] = want
		for k := 0; k <= len(evs); k++ {
			first := Fold(State{}, evs[:k]...)
			if !reflect.DeepEqual(first, prefix[k]) {
				t.Fatalf("seed %d: the fold of the first %d events differs from Evolve's:\n got %+v\nwant %+v", seed, k, first.Credits, prefix[k].Credits)
			}
			if got := Fold(first, evs[k:]...); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, split at %d: differs from Evolve's:\n got %+v\nwant %+v", seed, k, got.Credits, want.Credits)
			}
			if !reflect.DeepEqual(first, prefix[k]) {
				t.Fatalf("seed %d, split at %d: the fold on changed the state it started from", seed, k)
			}
		}
	}
}

// TestFolderPeekIsTheState (stop 73): Peek is the state folded so far, as State, without handing
// it out: the folder's next credit changes it in place, not by a copy of all credits.
func TestFolderPeekIsTheState(t *testing.T) {
	t.Parallel()
	evs := foldStream(60)
	f := NewFolder(State{})
	want := State{}
	for _, e := range evs {
		f.Apply(e)
		want = Evolve(want, e)
		if !reflect.DeepEqual(f.Peek(), want) {
			t.Fatalf("Peek after %T differs from Evolve's state", e)
		}
	}
	if !reflect.DeepEqual(f.State(), want) {
		t.Fatal("State differs from Evolve's")
	}
}
