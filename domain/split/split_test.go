package split

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	merchant = "0x" + strings.Repeat("a", 40)
	platform = "0x" + strings.Repeat("b", 40)
	contract = "0x" + strings.Repeat("c", 40)
	other    = "0x" + strings.Repeat("d", 40)
)

func TestDecide(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	cases := []struct {
		name string
		cmd  Configure
		want error
		bps  []int
	}{
		{"default shares", Configure{Merchant: merchant, Address: contract, Platform: platform}, nil, []int{9950, 50}},
		{"explicit shares", Configure{Merchant: merchant, Address: contract, Recipients: []Recipient{{merchant, 7000}, {other, 3000}}}, nil, []int{7000, 3000}},
		{"one recipient", Configure{Merchant: merchant, Address: contract, Recipients: []Recipient{{merchant, 10000}}}, nil, []int{10000}},
		{"no address", Configure{Merchant: merchant, Platform: platform}, ErrAddressRequired, nil},
		{"bad address", Configure{Merchant: merchant, Address: "0x12", Platform: platform}, ErrInvalid, nil},
		{"zero-address split", Configure{Merchant: merchant, Address: "0x" + strings.Repeat("0", 40), Platform: platform}, ErrInvalid, nil},
		{"default without platform", Configure{Merchant: merchant, Address: contract}, ErrPlatformNotConfigured, nil},
		{"sum below", Configure{Merchant: merchant, Address: contract, Recipients: []Recipient{{merchant, 9000}, {other, 999}}}, ErrInvalid, nil},
		{"sum above", Configure{Merchant: merchant, Address: contract, Recipients: []Recipient{{merchant, 9000}, {other, 1001}}}, ErrInvalid, nil},
		{"zero share", Configure{Merchant: merchant, Address: contract, Recipients: []Recipient{{merchant, 10000}, {other, 0}}}, ErrInvalid, nil},
		{"negative share", Configure{Merchant: merchant, Address: contract, Recipients: []Recipient{{merchant, 10001}, {other, -1}}}, ErrInvalid, nil},
		{"duplicate", Configure{Merchant: merchant, Address: contract, Recipients: []Recipient{{merchant, 5000}, {strings.ToUpper(merchant[:2]) + merchant[2:], 5000}}}, ErrInvalid, nil},
		{"bad recipient", Configure{Merchant: merchant, Address: contract, Recipients: []Recipient{{"nope", 10000}}}, ErrInvalid, nil},
		{"zero-address recipient", Configure{Merchant: merchant, Address: contract, Recipients: []Recipient{{merchant, 5000}, {"0x" + strings.Repeat("0", 40), 5000}}}, ErrInvalid, nil},
		{"zero-address platform", Configure{Merchant: merchant, Address: contract, Platform: "0x" + strings.Repeat("0", 40)}, ErrInvalid, nil},
		{"empty recipients", Configure{Merchant: merchant, Address: contract, Recipients: []Recipient{}}, ErrInvalid, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := Decide(State{}, c.cmd, now)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if c.want != nil {
				return
			}
			if len(evs) != 1 || len(evs[0].Recipients) != len(c.bps) {
				t.Fatalf("events %+v", evs)
			}
			for i, b := range c.bps {
				if evs[0].Recipients[i].SharesBps != b {
					t.Errorf("recipient %d: %d bps, want %d", i, evs[0].Recipients[i].SharesBps, b)
				}
			}
		})
	}
}

func TestConfiguredOnceIsIdempotent(t *testing.T) {
	t.Parallel()
	now := time.Now()
	evs, _ := Decide(State{}, Configure{Merchant: merchant, Address: contract, Platform: platform}, now)
	s := Evolve(State{}, evs[0])
	again, err := Decide(s, Configure{Merchant: merchant, Address: other, Recipients: []Recipient{{merchant, 10000}}}, now)
	if err != nil || len(again) != 0 {
		t.Fatalf("second configure: %v %v, want nothing", again, err)
	}
	if s2 := Evolve(s, Configured{Address: other}); s2.Address != contract {
		t.Fatal("a second event replaced the first configuration")
	}
}
