package split

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDecideRedeploy(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_700_000_000_000)
	configured := State{Configured: true, Address: "0x" + strings.Repeat("a", 40), Recipients: []Recipient{{"0x" + strings.Repeat("b", 40), TotalBps}}}
	next := "0x" + strings.Repeat("C", 40)
	cases := []struct {
		name    string
		s       State
		address string
		err     error
	}{
		{"not configured", State{}, next, ErrInvalid},
		{"malformed address", configured, "0x12", ErrInvalid},
		{"the zero address", configured, "0x" + strings.Repeat("0", 40), ErrInvalid},
		{"the same address", configured, "0x" + strings.Repeat("A", 40), ErrInvalid},
		{"moves to the new contract", configured, next, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := DecideRedeploy(c.s, "0xm", c.address, "no code", now)
			if !errors.Is(err, c.err) {
				t.Fatalf("err %v, want %v", err, c.err)
			}
			if c.err != nil {
				return
			}
			after := EvolveRedeployed(c.s, evs[0])
			if len(evs) != 1 || evs[0].Previous != c.s.Address || after.Address != strings.ToLower(next) || len(after.Recipients) != 1 ||
				len(after.Moved) != 1 || after.Moved[0] != c.s.Address || len(c.s.Moved) != 0 {
				t.Fatalf("events %+v, after %+v", evs, after)
			}
		})
	}
}
