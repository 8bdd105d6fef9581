package main

import (
	"strings"
	"syscall"
	"time"
)

// tcpUserTimeoutOpt is Linux's TCP_USER_TIMEOUT (linux/tcp.h), which package syscall lacks.
const tcpUserTimeoutOpt = 0x12

// setUserTimeout sets TCP_USER_TIMEOUT on a connection's socket before it connects. A Unix
// socket (a DATABASE_URL with host=/var/run/postgresql) has no TCP options: setting one fails the
// dial, so it is left alone.
func setUserTimeout(network, _ string, raw syscall.RawConn) error {
	if !strings.HasPrefix(network, "tcp") {
		return nil
	}
	var serr error
	err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, tcpUserTimeoutOpt, int(tcpUserTimeout/time.Millisecond))
	})
	if err != nil {
		return err
	}
	return serr
}
