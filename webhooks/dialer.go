package webhooks

import (
	"context"
	"net"
)

// dial resolves the host itself and, in production, refuses any address BlockedIP names, so that
// a name that resolves (or re-resolves) to an internal address never gets a connection.
func (d *Dispatcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, err
	}
	var dialer net.Dialer
	var lastErr error = errBlockedAddress
	for _, ip := range ips {
		if d.Production && BlockedIP(ip.IP) {
			continue
		}
		conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.IP.String(), port))
		if err == nil {
			return conn, nil
		}
		lastErr = err
	}
	return nil, lastErr
}
