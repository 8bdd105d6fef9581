package ratelimit

import (
	"net/netip"
)

// WiderMultiple is how many times a network's limit the network around it is allowed, all its
// narrower networks together: an IPv6 /56 holds WiderMultiple times a /64's limit, and a /48
// WiderMultiple times the /56's.
//
// The per-address limits count an IPv6 client by its /64 (transport.ClientKey): one subscriber's
// network. A subscriber given a /56 (a common residential allocation) has 256 of them, and had
// 256 times every per-address limit by sending from each in turn. Counting per /56 alone would put
// up to 256 neighbours of a carrier's pool (one /64 each, adjacent) into one bucket of one
// client's size. So both are counted: each /64 at the limit, and the /56 at 4 times it. A /56
// holder gets 4 times one client's share, not 256; four /64s of one /56 at full rate, or many
// neighbours at a quarter of it or less each, still pass.
//
// A /48 (a tunnel broker gives one for the asking, so do many hosting providers) has 256 /56s:
// counted per /56 only it had 1,024 times one client's share. Its /48 holds WiderMultiple times a
// /56's (16 times one client's), still 16 times what one IPv4 address behind a carrier's NAT
// shares among all its users.
const WiderMultiple = 4

// networkBits are the IPv6 networks counted around a client's /64, narrowest first.
var networkBits = [...]int{56, 48}

// IPv4NetworkMultiple is how many times one IPv4 address's limit its /24 is allowed, all its
// addresses together, in the bounds that count it (WideBuckets): 16, as an IPv6 /48 holds 16
// times one /64's.
//
// An IPv4 client was counted by its address alone, so a holder of a /24 (256 addresses, rented
// from hosting providers by the month) had 256 times every per-address bound. A carrier's NAT
// pool is a /24 too, every address of it shared by many subscribers already: counting the /24 in
// every limit would put them all into 16 addresses' worth of the public limit and of the stream
// slots, which real buyers use (the payment page's reads and streams). So the /24 is counted only
// where a real network sends little and the abuse costs the operator money or is a guess at a
// secret: the hourly bounds (split deployments the operator pays for, subscription creations)
// and the failures (wrong secrets, refused keys); not the public per-minute limit nor the slots.
const IPv4NetworkMultiple = WiderMultiple * WiderMultiple

// ipv4NetworkBits is the IPv4 network counted around a client's address (WideBuckets).
const ipv4NetworkBits = 24

// Bucket is one count a request takes: its key and how many requests the key allows per period.
type Bucket struct {
	Key   string
	Limit int
}

// Address is a client as the per-address limits count it, built once from its address
// (NewAddress): Key is its IPv4 address or the IPv6 /64 its address is in, and an IPv6 client has
// the networks around that /64 (its /56 and its /48), each counted at WiderMultiple times the one
// before. The limiters and the stream slots take the buckets from it (Buckets); nothing parses a
// key back into an address.
type Address struct {
	// Key names the client: "192.0.2.1", "2001:db8:1:2::/64", or the text of an address that
	// does not parse.
	Key string
	// networks are the IPv6 networks around Key, narrowest first (none for IPv4).
	networks []string
	// v4 is an IPv4 client's address, its /24 built only by WideBuckets (off the common path
	// of every request); invalid for IPv6.
	v4 netip.Addr
}

// NewAddress is the client at address a: an IPv4 address (an IPv4-mapped IPv6 one too) alone, an
// IPv6 address by its /64 with its /56 and /48.
func NewAddress(a netip.Addr) Address {
	if a = a.Unmap(); a.Is4() {
		return Address{Key: a.String(), v4: a}
	}
	if !a.IsValid() {
		return Address{Key: a.String()}
	}
	a = a.WithZone("")
	p, _ := a.Prefix(64) // a valid IPv6 address has every prefix up to 128
	out := Address{Key: p.String()}
	for _, bits := range networkBits {
		wide, _ := a.Prefix(bits)
		out.networks = append(out.networks, wide.String())
	}
	return out
}

// UnparsedAddress is a client whose address does not parse, counted alone by its text.
func UnparsedAddress(text string) Address { return Address{Key: text} }

// Buckets are the counts a request of the client takes against a limit of n: kind + ":" + Key at
// n, and each network around it at WiderMultiple times the one before. The kind names the limit,
// so each limit has its own buckets.
func (a Address) Buckets(kind string, n int) []Bucket {
	out := []Bucket{{Key: kind + ":" + a.Key, Limit: n}}
	for _, w := range a.networks {
		n *= WiderMultiple
		out = append(out, Bucket{Key: kind + ":" + w, Limit: n})
	}
	return out
}

// WideBuckets are Buckets, and for an IPv4 client its /24 at IPv4NetworkMultiple times n: for the
// bounds a real client's network sends little under (IPv4NetworkMultiple says which). An IPv6
// client's are its Buckets.
func (a Address) WideBuckets(kind string, n int) []Bucket {
	out := a.Buckets(kind, n)
	if a.v4.IsValid() {
		wide, _ := a.v4.Prefix(ipv4NetworkBits) // an IPv4 address has every prefix up to 32
		out = append(out, Bucket{Key: kind + ":" + wide.String(), Limit: n * IPv4NetworkMultiple})
	}
	return out
}

// tighter is the result of two allowed counts that leaves the fewer requests: what the client
// can still send is the least of the two.
func tighter(a, b Result) Result {
	if b.Remaining < a.Remaining {
		return b
	}
	return a
}
