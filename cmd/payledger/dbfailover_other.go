//go:build !linux

package main

import "syscall"

// setUserTimeout does nothing where TCP_USER_TIMEOUT is not known: keepalive probes remain.
func setUserTimeout(_, _ string, _ syscall.RawConn) error { return nil }
