package settlement

import (
	"sync"

	"github.com/payledger/payledger/domain/receipt"
)

// knownMax bounds the receipts a detector remembers (a few KB each).
const knownMax = 50_000

// knownReceipt is a receipt's state at version, as this detector last appended to it. It is held
// and passed by pointer and never changed in place (a decision makes a new one): a State is over
// a kilobyte, and copying it in and out of the map and through each decision was a tenth of the
// Go time of recording a confirming block's 5,000 receipts (issue 38).
type knownReceipt struct {
	st      receipt.State
	version uint64
}

// knownReceipts are the receipts this detector appended to, so that the next step (a transfer
// seen, then confirmed) decides without reading their streams again. A receipt changed since by
// anyone else fails its append's expected version and is reloaded: memory only saves reads,
// it never decides on a state the stream does not hold.
type knownReceipts struct {
	mu sync.Mutex
	m  map[string]*knownReceipt
}

func (k *knownReceipts) get(id string) (*knownReceipt, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	r, ok := k.m[id]
	return r, ok
}

func (k *knownReceipts) put(id string, r *knownReceipt) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil || len(k.m) >= knownMax {
		k.m = map[string]*knownReceipt{} // forgetting costs one read each, never a wrong decision
	}
	k.m[id] = r
}

func (k *knownReceipts) forget(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, id)
}

// versions is the version of each receipt remembered.
func (k *knownReceipts) versions() map[string]uint64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make(map[string]uint64, len(k.m))
	for id, r := range k.m {
		out[id] = r.version
	}
	return out
}

// retain forgets the receipts not in keep.
func (k *knownReceipts) retain(keep map[string]bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id := range k.m {
		if !keep[id] {
			delete(k.m, id)
		}
	}
}

// split returns the ids not remembered and those remembered.
func (k *knownReceipts) split(ids []string) (unknown, known []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, id := range ids {
		if _, ok := k.m[id]; ok {
			known = append(known, id)
		} else {
			unknown = append(unknown, id)
		}
	}
	return unknown, known
}
