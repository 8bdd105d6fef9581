package receipt

import "container/heap"

// A Folder's amounts (stop 73): the receipts projector renders receipt.payment_detected after
// every transfer seen, and State's AmountReceived sums all the receipt's credits (and
// RequestedToken finds the first credit not dropped by a scan), so a batch of k sightings of a
// receipt of n credits cost k×n: a catch-up of thousands of dust sightings was quadratic again.
// The folder keeps what those read as its credits change: the counted units by token
// (receivedUnits, added and taken away credit by credit, exact) and the positions of the credits
// not dropped (a heap, the first on top), so each amount costs the receipt's tokens, not its
// credits. They are State's amounts, event for event (TestFolderAmountsAreTheStates).

// RequestedToken is State.RequestedToken of the state folded so far.
func (f *Folder) RequestedToken() string {
	f.own()
	c, ok := f.firstCredit()
	return f.s.requestedToken(c, ok)
}

// AmountRequired is State.AmountRequired of the state folded so far.
func (f *Folder) AmountRequired() string { return f.s.amountRequired(f.RequestedToken()) }

// AmountReceived is State.AmountReceived of the state folded so far.
func (f *Folder) AmountReceived() string {
	f.own()
	if len(f.s.Credits) == 0 {
		return ""
	}
	return f.s.amountReceived(f.RequestedToken(), f.units)
}

// firstCredit is FirstCredit on the heap: the entries of credits dropped since they were pushed
// are taken off the top (each credit is pushed again when it counts again), so the work is one
// push and at most one pop per change of a credit, never a scan.
func (f *Folder) firstCredit() (Credit, bool) {
	for f.live.Len() > 0 {
		if c := f.s.Credits[f.live[0]]; !c.Dropped {
			return c, true
		}
		heap.Pop(&f.live)
	}
	return Credit{}, false
}

// change sets credit i to c (through set, which changes it in place), keeping the counted units
// and the heap of credits not dropped.
func (f *Folder) change(i int, set func(c *Credit)) {
	c := &f.s.Credits[i]
	wasDropped := c.Dropped
	f.units.add(*c, -1)
	set(c)
	f.units.add(*c, 1)
	if wasDropped && !c.Dropped {
		heap.Push(&f.live, i)
	}
}

// positions is a min-heap of credit positions (container/heap).
type positions []int

func (p positions) Len() int           { return len(p) }
func (p positions) Less(i, j int) bool { return p[i] < p[j] }
func (p positions) Swap(i, j int)      { p[i], p[j] = p[j], p[i] }
func (p *positions) Push(x any)        { *p = append(*p, x.(int)) }
func (p *positions) Pop() any {
	old := *p
	x := old[len(old)-1]
	*p = old[:len(old)-1]
	return x
}
