package transport

import (
	"fmt"
	"testing"

	"github.com/payledger/payledger/transport/ratelimit"
)

// TestMerchantStreamsCountAnIPv6Slash56AtFourTimesTheBound: an IPv6 client is counted by its /64
// (streamsPerAddress merchant streams) and by the /56 around it, at ratelimit.WiderMultiple times
// that, as the rate limits count it. A /56 holder opening streams from each of its 256 /64s in turn
// held 256 times the bound; now a fifth /64 of a full /56 is refused, while a /64 of another /56
// and an IPv4 client are not, and a slot given back in the /56 is taken again by another /64.
func TestMerchantStreamsCountAnIPv6Slash56AtFourTimesTheBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	n := 0
	open := func(addr string) (func(), error) {
		n++
		return e.srv.TakeStreamSlot(e.from(addr), fmt.Sprintf("0x%040x", n))
	}
	var gives []func()
	defer func() {
		for _, g := range gives {
			g()
		}
	}()
	for sub := range ratelimit.WiderMultiple {
		for i := range streamsPerAddress {
			give, err := open(fmt.Sprintf("[2001:db8:7:%x::%x]", sub*0x3f, i+1))
			if err != nil {
				t.Fatalf("/64 %d of the /56, stream %d: %v", sub, i+1, err)
			}
			gives = append(gives, give)
		}
	}
	if _, err := open("[2001:db8:7:ff::1]"); err == nil {
		t.Fatalf("a fifth /64 of a /56 holding %d streams was given a slot", ratelimit.WiderMultiple*streamsPerAddress)
	}
	for _, addr := range []string{"[2001:db8:7:100::1]", "192.0.2.44"} {
		give, err := open(addr)
		if err != nil {
			t.Fatalf("%s (not in the full /56): %v", addr, err)
		}
		give()
	}
	gives[0]()
	give, err := open("[2001:db8:7:ff::1]")
	if err != nil {
		t.Fatalf("a slot given back in the /56 was not taken by another /64: %v", err)
	}
	give()
}

// TestSlotNetwork: the /56 of an IPv6 /64 key; anything else is counted alone.
func TestSlotNetwork(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"2001:db8:1:2::/64":  "net:2001:db8:1::/56",
		"2001:db8:1:ff::/64": "net:2001:db8:1::/56",
		"2001:db8:1:2::1/64": "",
		"2001:db8:1::/56":    "",
		"::ffff:0:0/64":      "",
		"192.0.2.1":          "",
		"not an address":     "",
	} {
		if got, ok := slotNetwork(key); got != want || ok != (want != "") {
			t.Errorf("slotNetwork(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
}
