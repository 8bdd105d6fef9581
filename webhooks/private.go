package webhooks

import (
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// errBlockedAddress is the attempt's error when a production webhook would reach inside.
var errBlockedAddress = errors.New("webhook address not allowed: localhost, or a loopback, private, link-local, CGNAT, multicast, unspecified or reserved address")

// The ranges refused beyond what netip classifies (loopback, private incl. fc00::/7, link-local,
// multicast, unspecified): every other entry of IANA's IPv4 and IPv6 special-purpose address
// registries, globally reachable or not (no webhook receiver lives in a benchmarking,
// documentation, AS112 or protocol-assignment range, and each has been used to reach inside).
// Never written after initialisation.
var (
	blockedPrefixes = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),         // "this network": Linux connects 0.0.0.0 to the host itself
		netip.MustParsePrefix("100.64.0.0/10"),     // carrier-grade NAT (RFC 6598): the provider's inside
		netip.MustParsePrefix("192.0.0.0/24"),      // IETF protocol assignments (RFC 6890)
		netip.MustParsePrefix("192.0.2.0/24"),      // documentation TEST-NET-1 (RFC 5737)
		netip.MustParsePrefix("192.31.196.0/24"),   // AS112-v4 (RFC 7535)
		netip.MustParsePrefix("192.52.193.0/24"),   // AMT (RFC 7450)
		netip.MustParsePrefix("192.88.99.0/24"),    // deprecated 6to4 relay anycast (RFC 7526)
		netip.MustParsePrefix("192.175.48.0/24"),   // direct delegation AS112 (RFC 7534)
		netip.MustParsePrefix("198.18.0.0/15"),     // benchmarking (RFC 2544): often a lab's or a proxy's inside
		netip.MustParsePrefix("198.51.100.0/24"),   // documentation TEST-NET-2
		netip.MustParsePrefix("203.0.113.0/24"),    // documentation TEST-NET-3
		netip.MustParsePrefix("240.0.0.0/4"),       // reserved, and the limited broadcast 255.255.255.255
		netip.MustParsePrefix("::/96"),             // IPv4-compatible IPv6 (deprecated), beside :: and ::1
		netip.MustParsePrefix("64:ff9b:1::/48"),    // local-use NAT64 (RFC 8215): a site's own translator
		netip.MustParsePrefix("100::/64"),          // discard-only (RFC 6666)
		netip.MustParsePrefix("100:0:0:1::/64"),    // dummy IPv6 prefix (RFC 9780)
		netip.MustParsePrefix("2001::/23"),         // IETF protocol assignments: Teredo, benchmarking, ORCHID
		netip.MustParsePrefix("2001:db8::/32"),     // documentation (RFC 3849)
		netip.MustParsePrefix("2002::/16"),         // 6to4 (RFC 3056): carries an IPv4 address of any kind
		netip.MustParsePrefix("2620:4f:8000::/48"), // direct delegation AS112
		netip.MustParsePrefix("3fff::/20"),         // documentation (RFC 9637)
		netip.MustParsePrefix("5f00::/16"),         // segment routing SIDs (RFC 9602)
		netip.MustParsePrefix("fec0::/10"),         // site-local (deprecated), private in effect
	}
	// nat64 is the well-known NAT64 prefix (RFC 6052): its addresses are judged by the IPv4
	// address they carry, so an IPv6-only host can still reach public receivers.
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// BlockedIP reports an address a production webhook must not connect to: loopback, private
// (RFC 1918, IPv6 ULA fc00::/7), link-local, multicast, unspecified, and every other IANA
// special-purpose range (blockedPrefixes), and any of these written as IPv4-mapped (::ffff:a.b.c.d),
// IPv4-compatible or NAT64 IPv6. Anything that is not an IPv4 or IPv6 address is blocked.
func BlockedIP(ip net.IP) bool {
	a, ok := netip.AddrFromSlice(ip)
	return !ok || blockedAddr(a)
}

func blockedAddr(a netip.Addr) bool {
	a = a.Unmap() // ::ffff:10.0.0.1 is 10.0.0.1
	if nat64.Contains(a) {
		b := a.As16()
		return blockedAddr(netip.AddrFrom4([4]byte(b[12:])))
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// PrivateHost reports a URL that must not be a production webhook's, its host read as the HTTP
// client reads it (IDNA): unparseable or without a host, "localhost" or a *.localhost name, an address literal BlockedIP refuses (a zoned IPv6
// literal is always link-scoped), or a numeric name such as 127.1, 2130706433 or 0x7f.1 that C
// resolvers read as an IPv4 address (no real top-level domain starts with a digit). Other names
// pass; the dialer checks what they resolve to with BlockedIP at connect time.
func PrivateHost(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return true
	}
	h := u.Hostname()
	// The HTTP client connects to the name's IDNA (UTS #46) form: fullwidth "１２７．０．０．１" and
	// "ｌｏｃａｌｈｏｓｔ" are 127.0.0.1 and localhost to it, so they are judged as such here (as
	// net/http does, a name IDNA refuses stays as written).
	if a, err := idna.Lookup.ToASCII(h); err == nil {
		h = a
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" || h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Zone() != "" || blockedAddr(a)
	}
	last := h[strings.LastIndexByte(h, '.')+1:]
	return last == "" || (last[0] >= '0' && last[0] <= '9')
}
