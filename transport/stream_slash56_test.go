package transport

import (
	"fmt"
	"net/netip"
	"slices"
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

// TestSlotsCountAnAddressByItsNetworks: the slots of an IPv6 client are its /64's, its /56's and
// its /48's, built from its address (ratelimit.NewAddress; the slots used to parse the /64 key back
// to find the /56); anything else is counted alone.
func TestSlotsCountAnAddressByItsNetworks(t *testing.T) {
	t.Parallel()
	s := &Slots{Max: 2}
	for addr, want := range map[string][]ratelimit.Bucket{
		"2001:db8:1:2::1":  {{Key: "addr:2001:db8:1:2::/64", Limit: 2}, {Key: "addr:2001:db8:1::/56", Limit: 8}, {Key: "addr:2001:db8:1::/48", Limit: 32}},
		"2001:db8:1:ff::9": {{Key: "addr:2001:db8:1:ff::/64", Limit: 2}, {Key: "addr:2001:db8:1::/56", Limit: 8}, {Key: "addr:2001:db8:1::/48", Limit: 32}},
		"::ffff:192.0.2.1": {{Key: "addr:192.0.2.1", Limit: 2}},
		"192.0.2.1":        {{Key: "addr:192.0.2.1", Limit: 2}},
	} {
		if got := s.addressKeys(ratelimit.NewAddress(netip.MustParseAddr(addr))); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", addr, got, want)
		}
	}
	if got := s.addressKeys(ratelimit.UnparsedAddress("not an address")); len(got) != 1 {
		t.Errorf("an unparsed address: %v, want counted alone", got)
	}
}
