package split_test

import (
	"errors"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/split"
)

func TestDecideClaim(t *testing.T) {
	t.Parallel()
	const a, b, addr = "0xAAaa000000000000000000000000000000000001", "0xbbbb000000000000000000000000000000000002", "0xCCCC000000000000000000000000000000000003"
	now := time.UnixMilli(1_700_000_000_000)
	for _, c := range []struct {
		name     string
		owner    split.Owner
		merchant string
		events   int
		err      error
	}{
		{"unowned: claimed", split.Owner{}, a, 1, nil},
		{"owned by the same merchant: nothing", split.Owner{Merchant: "0xaaaa000000000000000000000000000000000001"}, a, 0, nil},
		{"owned by another merchant: refused", split.Owner{Merchant: "0xaaaa000000000000000000000000000000000001"}, b, 0, split.ErrClaimed},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, err := split.DecideClaim(c.owner, c.merchant, addr, now)
			if !errors.Is(err, c.err) || len(evs) != c.events {
				t.Fatalf("DecideClaim = %v, %v; want %d events, %v", evs, err, c.events, c.err)
			}
			if len(evs) == 1 && (evs[0].Address != "0xcccc000000000000000000000000000000000003" || split.EvolveOwner(c.owner, evs[0]).Merchant != "0xaaaa000000000000000000000000000000000001") {
				t.Fatalf("claim %+v", evs[0])
			}
		})
	}
	if got := split.EvolveOwner(split.Owner{Merchant: "0x1"}, split.AddressClaimed{Merchant: "0x2"}); got.Merchant != "0x1" {
		t.Fatalf("a second claim replaced the first: %v", got)
	}
}
