package receipt

import (
	"container/heap"
	"slices"
	"strings"
)

// Folding a long stream (stop 72): Evolve takes a State by value and the caller may keep the
// state it passed, so a change to the credits is made to a copy (putCredit) and a credit is found
// by a scan: a stream of n credits folds in time n². A Folder folds a stream in time linear in its
// events: it keeps its state's credits as its own copy, changed in place, beside an index of them
// by (transaction, log index), and hands out a state only by State, after which its next change
// to the credits copies them first (copy-on-write only when the state is shared). Its state is
// Evolve's, event for event (TestFolderFoldsAsEvolve).

// creditKey is a credit's key: its transaction hash in lower case and its log index.
type creditKey struct {
	tx  string
	log int
}

func keyOf(tx string, logIndex int) creditKey { return creditKey{strings.ToLower(tx), logIndex} }

// Folder folds a receipt's events into its state in time linear in the events.
type Folder struct {
	s     State
	owned bool              // s.Credits is the folder's own: changed in place, indexed below
	keys  map[creditKey]int // position in s.Credits of each credit, by key (while owned)
	txs   map[string][]int  // positions of each transaction's token credits (log index >= 0), in order
	drops map[int]bool      // positions of the dropped ETH transfers by transaction (Credit.HeldBy)
	gone  map[int]bool      // positions of the dropped balance credits no balance credit took over yet (HeldBy "")
	open  map[int]bool      // positions of the credits a balance credit seen now takes over (Credit.takenOver)
	units receivedUnits     // the counted credits' units (deposit_fold_amounts.go)
	live  positions         // a heap of the positions of the credits not dropped, with stale ones
}

// NewFolder is a Folder starting at s (s is never changed).
func NewFolder(s State) *Folder { return &Folder{s: s} }

// Fold is s with evs applied in order, as Evolve applies them one by one.
func Fold(s State, evs ...Event) State {
	f := NewFolder(s)
	for _, e := range evs {
		f.Apply(e)
	}
	return f.State()
}

// State is the state folded so far. It is the caller's: the folder's next change copies first.
func (f *Folder) State() State {
	f.owned = false
	return f.s
}

// Peek is the state folded so far, to be read at once: unlike State it shares the folder's
// credits, which its next Apply may change in place, so it must not be kept past that (a
// projector renders a payload from the state after each event; State there would make each
// next credit copy them all).
func (f *Folder) Peek() State { return f.s }

// Apply applies one event, as Evolve does.
func (f *Folder) Apply(e Event) {
	switch e := e.(type) {
	case DepositTransferSeen:
		f.own()
		i, senders := f.indexOf(e.TransactionHash, e.LogIndex, e.BlockHash), e.Senders
		if e.LogIndex < ETHLogIndex {
			senders = f.balanceSenders(e, i)
		}
		f.put(i, Credit{TransactionHash: e.TransactionHash, LogIndex: e.LogIndex, BlockNumber: e.BlockNumber, BlockHash: e.BlockHash,
			Sender: e.Sender, Token: e.Token, AmountUnits: e.AmountUnits, Decimals: e.Decimals, BlockTime: e.BlockTime, TxIndex: e.TxIndex, Senders: senders})
		if e.LogIndex < ETHLogIndex {
			for j := range f.drops {
				f.s.Credits[j].HeldBy = e.BlockHash
			}
			for j := range f.gone {
				f.s.Credits[j].HeldBy = e.BlockHash
			}
			clear(f.gone)
			clear(f.open)
		}
		if f.s.Status == StatusGenerated {
			f.s.setStatus(StatusPending, e.At)
		}
	case DepositTransferConfirmed:
		f.own()
		if i, ok := f.keys[keyOf(e.TransactionHash, e.LogIndex)]; ok {
			f.change(i, func(c *Credit) {
				c.Confirmed, c.Dropped, c.BlockNumber, c.BlockHash, c.HeldBy = true, false, e.BlockNumber, e.BlockHash, ""
			})
			delete(f.drops, i)
			delete(f.gone, i)
			delete(f.open, i)
		}
	case DepositTransferDropped:
		f.own()
		if i, ok := f.keys[keyOf(e.TransactionHash, e.LogIndex)]; ok && strings.EqualFold(f.s.Credits[i].BlockHash, e.BlockHash) {
			f.change(i, func(c *Credit) { c.Dropped, c.Confirmed = true, false })
			if f.s.Credits[i].droppedETH() {
				f.drops[i] = true
			}
			f.mark(i)
		}
	default:
		f.s = Evolve(f.s, e) // no other event changes the credits (TestFolderFoldsAsEvolve)
	}
}

// own makes the folder's credits its own (a copy of the state's) and indexes them, unless they are.
func (f *Folder) own() {
	if f.owned {
		return
	}
	cs := f.s.Credits
	if cs != nil { // none stay nil, as Evolve leaves them when a confirmation finds no credit
		cs = make([]Credit, len(f.s.Credits), max(len(f.s.Credits)*5/4, 16))
		copy(cs, f.s.Credits)
	}
	f.s.Credits, f.owned = cs, true
	f.keys, f.txs, f.drops = make(map[creditKey]int, cap(cs)), map[string][]int{}, map[int]bool{}
	f.gone, f.open = map[int]bool{}, map[int]bool{}
	f.units, f.live = receivedUnits{}, make(positions, 0, cap(cs))
	for i, c := range cs {
		f.index(i, c)
	}
}

// index records credit c at position i.
func (f *Folder) index(i int, c Credit) {
	k := keyOf(c.TransactionHash, c.LogIndex)
	if _, dup := f.keys[k]; !dup { // the first in order, as Credit finds it
		f.keys[k] = i
	}
	if c.LogIndex >= 0 {
		f.txs[k.tx] = append(f.txs[k.tx], i)
	}
	if c.droppedETH() {
		f.drops[i] = true
	}
	f.mark(i)
	f.units.add(c, 1)
	if !c.Dropped {
		heap.Push(&f.live, i)
	}
}

// mark records whether credit i is a dropped balance credit not taken over (gone) and whether a
// balance credit seen now takes it over (open).
func (f *Folder) mark(i int) {
	c := f.s.Credits[i]
	if c.isBalance() && c.Dropped && c.HeldBy == "" {
		f.gone[i] = true
	}
	if c.takenOver() {
		f.open[i] = true
	}
}

// indexOf is creditIndex on the index: the credit of the key, else for a token transfer the
// first token credit of tx in another block, else -1.
func (f *Folder) indexOf(tx string, logIndex int, block string) int {
	k := keyOf(tx, logIndex)
	if i, ok := f.keys[k]; ok {
		return i
	}
	if logIndex < 0 {
		return -1
	}
	for _, i := range f.txs[k.tx] {
		if !strings.EqualFold(f.s.Credits[i].BlockHash, block) {
			return i
		}
	}
	return -1
}

// put sets credit i to c (i < 0: appends it), keeping the index.
func (f *Folder) put(i int, c Credit) {
	if i < 0 {
		f.s.Credits = append(f.s.Credits, c)
		f.index(len(f.s.Credits)-1, c)
		return
	}
	old := keyOf(f.s.Credits[i].TransactionHash, f.s.Credits[i].LogIndex)
	if k := keyOf(c.TransactionHash, c.LogIndex); k != old { // a transfer moved to another log index
		delete(f.keys, old)
		f.keys[k] = i
	}
	f.change(i, func(old *Credit) { *old = c })
	delete(f.drops, i) // c is seen, not dropped
	delete(f.gone, i)
	delete(f.open, i)
}

// balanceSenders is State.balanceSenders on the index: the credits taken over are the open ones
// and the one replaced, in the credits' order.
func (f *Folder) balanceSenders(e DepositTransferSeen, replaced int) []string {
	at := make([]int, 0, len(f.open)+1)
	for i := range f.open {
		at = append(at, i)
	}
	if replaced >= 0 && !f.open[replaced] {
		at = append(at, replaced)
	}
	slices.Sort(at)
	taken := make([]Credit, len(at))
	for j, i := range at {
		taken[j] = f.s.Credits[i]
	}
	return mergeSenders(e.Senders, taken)
}
