package ratelimit

import (
	"net/netip"
	"strings"
)

// WiderMultiple is how many times a /64's limit the /56 around it is allowed, all its /64s
// together.
//
// The per-address limits count an IPv6 client by its /64 (transport.ClientKey): one subscriber's
// network. A subscriber given a /56 (a common residential allocation) has 256 of them, and had
// 256 times every per-address limit by sending from each in turn. Counting per /56 alone would put
// up to 256 neighbours of a carrier's pool (one /64 each, adjacent) into one bucket of one
// client's size. So both are counted: each /64 at the limit, and the /56 at 4 times it. A /56
// holder gets 4 times one client's share, not 256; four /64s of one /56 at full rate, or many
// neighbours at a quarter of it or less each, still pass.
const WiderMultiple = 4

// widerKey is the key of the /56 around the IPv6 /64 that key names ("<kind>:<prefix>/64", as the
// per-address limits build it from transport.ClientKey), and whether key names one: IPv4
// addresses, keys, wallets and anything else are counted alone. The /56's key keeps the kind, so
// each limit has its own /56 bucket.
func widerKey(key string) (string, bool) {
	kind, rest, ok := strings.Cut(key, ":")
	if !ok || kind == "" || strings.Trim(kind, "abcdefghijklmnopqrstuvwxyz") != "" {
		return "", false
	}
	p, err := netip.ParsePrefix(rest)
	if err != nil || p.Bits() != 64 || !p.Addr().Is6() || p.Addr().Is4In6() || p.Masked() != p {
		return "", false
	}
	wide, err := p.Addr().Prefix(56)
	if err != nil {
		return "", false
	}
	return kind + ":" + wide.String(), true
}

// tighter is the result of two allowed counts that leaves the fewer requests: what the client
// can still send is the least of the two.
func tighter(a, b Result) Result {
	if b.Remaining < a.Remaining {
		return b
	}
	return a
}
