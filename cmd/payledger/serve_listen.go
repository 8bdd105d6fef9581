package main

import (
	"fmt"
	"net"
)

// listeners are serve's bound ports: the public one, and METRICS_ADDR's and PPROF_ADDR's when
// set (nil otherwise).
type listeners struct {
	http, metrics, pprof net.Listener
}

// listenAddrs are the addresses serve listens on, each with its variable.
func listenAddrs(cfg config) []struct{ env, addr string } {
	out := []struct{ env, addr string }{{"HTTP_ADDR", cfg.HTTPAddr}}
	if cfg.PprofAddr != "" {
		out = append(out, struct{ env, addr string }{"PPROF_ADDR", cfg.PprofAddr})
	}
	if cfg.MetricsAddr != "" {
		out = append(out, struct{ env, addr string }{"METRICS_ADDR", cfg.MetricsAddr})
	}
	return out
}

// checkAddrs binds each of serve's addresses and lets it go at once, so that a port another
// process holds fails the start before anything starts. The ports are held only from listen on,
// once the service is built: held through the start (migrations may take minutes), they would
// take connections that nobody answers.
func checkAddrs(cfg config) error {
	for _, a := range listenAddrs(cfg) {
		l, err := net.Listen("tcp", a.addr)
		if err != nil {
			return fmt.Errorf("%s: %w", a.env, err)
		}
		_ = l.Close()
	}
	return nil
}

// listen binds every address of serve's; on an error none stays bound.
func listen(cfg config) (*listeners, error) {
	ls := &listeners{}
	for _, a := range listenAddrs(cfg) {
		l, err := net.Listen("tcp", a.addr)
		if err != nil {
			ls.close()
			return nil, fmt.Errorf("%s: %w", a.env, err)
		}
		switch a.env {
		case "HTTP_ADDR":
			ls.http = l
		case "PPROF_ADDR":
			ls.pprof = l
		default:
			ls.metrics = l
		}
	}
	return ls, nil
}

// close closes the listeners still bound (a second close of one a server closed does nothing).
func (ls *listeners) close() {
	for _, l := range []net.Listener{ls.http, ls.metrics, ls.pprof} {
		if l != nil {
			_ = l.Close()
		}
	}
}
