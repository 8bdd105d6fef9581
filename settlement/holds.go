package settlement

import "time"

// holds are things a worker holds back until a time, each for an error (a split contract that
// burns the operator's gas: its releases, its deposits' sweeps). A hold that has ended is
// forgotten when it is next looked at. Not safe for concurrent use: each worker's passes run one
// at a time.
type holds[K comparable] map[K]hold

// hold is one thing held back until until, for err.
type hold struct {
	until time.Time
	err   error
}

// put holds k back until until, for err.
func (hs holds[K]) put(k K, until time.Time, err error) { hs[k] = hold{until: until, err: err} }

// of is the error k is held back for at now, nil when it is not (any more).
func (hs holds[K]) of(k K, now time.Time) error {
	h, ok := hs[k]
	if !ok {
		return nil
	}
	if now.Before(h.until) {
		return h.err
	}
	delete(hs, k)
	return nil
}

// first is the error of the hold that ends first at now, nil when none is held.
func (hs holds[K]) first(now time.Time) error {
	var first *hold
	for k, h := range hs {
		if !now.Before(h.until) {
			delete(hs, k)
			continue
		}
		if first == nil || h.until.Before(first.until) {
			first = &h
		}
	}
	if first == nil {
		return nil
	}
	return first.err
}
