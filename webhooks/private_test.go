package webhooks

import (
	"net"
	"testing"
)

func TestPrivateHost(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, url string
		private   bool
	}{
		// names
		{"localhost", "https://localhost/x", true},
		{"localhost with port, upper case", "https://LOCALHOST:8443/x", true},
		{"localhost, fully qualified", "https://localhost./x", true},
		{"a .localhost name", "https://api.localhost/x", true},
		{"a name containing localhost", "https://localhost.example.com/x", false},
		{"a public name", "https://hooks.example/x", false},
		{"a name starting with a digit", "https://1password.com/x", false},
		// IPv4 literals
		{"loopback", "https://127.0.0.1/x", true},
		{"loopback range", "https://127.8.9.10/x", true},
		{"private 10/8", "https://10.0.0.1/x", true},
		{"private 172.16/12", "https://172.31.255.1/x", true},
		{"just outside 172.16/12", "https://172.32.0.1/x", false},
		{"private 192.168/16", "https://192.168.1.1/x", true},
		{"link-local, cloud metadata", "https://169.254.169.254/x", true},
		{"unspecified", "https://0.0.0.0/x", true},
		{"this network 0/8", "https://0.1.2.3/x", true},
		{"CGNAT low end", "https://100.64.0.1/x", true},
		{"CGNAT high end", "https://100.127.255.254/x", true},
		{"below CGNAT", "https://100.63.255.255/x", false},
		{"above CGNAT", "https://100.128.0.1/x", false},
		{"link-local multicast", "https://224.0.0.1/x", true},
		{"multicast", "https://239.255.255.250/x", true},
		{"reserved 240/4", "https://240.0.0.1/x", true},
		{"broadcast", "https://255.255.255.255/x", true},
		{"public", "https://8.8.8.8/x", false},
		{"public with port", "https://1.1.1.1:8443/x", false},
		// IPv6 literals
		{"IPv6 loopback", "https://[::1]/x", true},
		{"IPv6 unspecified", "https://[::]/x", true},
		{"ULA fc00::/7, fc half", "https://[fc00::1]/x", true},
		{"ULA fc00::/7, fd half", "https://[fd12:3456::1]/x", true},
		{"IPv6 link-local", "https://[fe80::1]/x", true},
		{"IPv6 link-local with zone", "https://[fe80::1%25eth0]:8443/x", true},
		{"site-local (deprecated)", "https://[fec0::1]/x", true},
		{"IPv6 multicast", "https://[ff02::1]/x", true},
		{"IPv6 public", "https://[2606:4700:4700::1111]/x", false},
		// IPv4 inside IPv6
		{"mapped loopback", "https://[::ffff:127.0.0.1]/x", true},
		{"mapped private", "https://[::ffff:10.0.0.1]/x", true},
		{"mapped metadata, hex form", "https://[::ffff:a9fe:a9fe]/x", true},
		{"mapped CGNAT", "https://[::ffff:100.64.0.1]/x", true},
		{"mapped public", "https://[::ffff:8.8.8.8]/x", false},
		{"IPv4-compatible loopback", "https://[::127.0.0.1]/x", true},
		{"NAT64 of private", "https://[64:ff9b::10.0.0.1]/x", true},
		{"NAT64 of loopback, hex form", "https://[64:ff9b::7f00:1]/x", true},
		{"NAT64 of public", "https://[64:ff9b::8.8.8.8]/x", false},
		// numeric names C resolvers read as IPv4
		{"shorthand 127.1", "https://127.1/x", true},
		{"decimal", "https://2130706433/x", true},
		{"hex", "https://0x7f000001/x", true},
		{"octal", "https://0177.0.0.1/x", true},
		{"leading zero", "https://010.0.0.1/x", true},
		// names the HTTP client maps (IDNA, UTS #46) to an internal one before it connects
		{"fullwidth loopback", "https://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11/x", true},
		{"fullwidth metadata", "https://\uff11\uff16\uff19\uff0e\uff12\uff15\uff14\uff0e\uff11\uff16\uff19\uff0e\uff12\uff15\uff14/x", true},
		{"fullwidth localhost", "https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/x", true},
		{"circled localhost", "https://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3/x", true},
		{"ideographic full stops", "https://10\u30020\u30020\u30021/x", true},
		{"a public IDN name", "https://b\u00fccher.example/x", false},
		// not a URL with a host
		{"no host", "https:///x", true},
		{"unparseable", "https://[::1/x", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := PrivateHost(c.url); got != c.private {
				t.Errorf("PrivateHost(%q) = %v, want %v", c.url, got, c.private)
			}
		})
	}
}

// TestBlockedIP covers the forms the resolver hands the dialer: 4- and 16-byte slices.
func TestBlockedIP(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		ip      net.IP
		blocked bool
	}{
		{"nil", nil, true},
		{"not an address", net.IP{1, 2, 3}, true},
		{"4-byte private", net.IP{10, 0, 0, 1}, true},
		{"16-byte private", net.IPv4(192, 168, 0, 1), true},
		{"16-byte CGNAT", net.IPv4(100, 100, 0, 1), true},
		{"16-byte public", net.IPv4(8, 8, 8, 8), false},
		{"4-byte public", net.IP{93, 184, 215, 14}, false},
		{"mapped loopback", net.ParseIP("::ffff:127.0.0.1"), true},
		{"ULA", net.ParseIP("fd00::1"), true},
		{"IPv6 public", net.ParseIP("2a00:1450:4001::200e"), false},
		// Issue 36 finding 13: every IANA special-purpose range.
		{"benchmarking", net.IPv4(198, 18, 0, 1), true},
		{"benchmarking top", net.IP{198, 19, 255, 254}, true},
		{"past benchmarking", net.IP{198, 20, 0, 1}, false},
		{"TEST-NET-1", net.IP{192, 0, 2, 1}, true},
		{"TEST-NET-2", net.IP{198, 51, 100, 1}, true},
		{"TEST-NET-3", net.IP{203, 0, 113, 1}, true},
		{"protocol assignments", net.IP{192, 0, 0, 8}, true},
		{"6to4 relay", net.IP{192, 88, 99, 1}, true},
		{"AS112", net.IP{192, 175, 48, 1}, true},
		{"broadcast", net.IP{255, 255, 255, 255}, true},
		{"IPv6 documentation", net.ParseIP("2001:db8::1"), true},
		{"IPv6 documentation 3fff", net.ParseIP("3fff::1"), true},
		{"Teredo", net.ParseIP("2001::1"), true},
		{"IPv6 benchmarking", net.ParseIP("2001:2::1"), true},
		{"6to4", net.ParseIP("2002:c0a8:1::1"), true},
		{"local-use NAT64", net.ParseIP("64:ff9b:1::a00:1"), true},
		{"discard-only", net.ParseIP("100::1"), true},
		{"NAT64 of public", net.ParseIP("64:ff9b::808:808"), false},
		{"NAT64 of benchmarking", net.ParseIP("64:ff9b::c612:1"), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := BlockedIP(c.ip); got != c.blocked {
				t.Errorf("BlockedIP(%v) = %v, want %v", c.ip, got, c.blocked)
			}
		})
	}
}
