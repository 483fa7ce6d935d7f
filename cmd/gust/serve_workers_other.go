//go:build !linux

package main

import (
	"errors"
	"syscall"
)

// workerProcAttr is nil: checkWorkers refuses --workers outside Linux.
func workerProcAttr() *syscall.SysProcAttr { return nil }

// setReusePort fails: only Linux spreads connections over processes that
// share a port.
func setReusePort(network, address string, c syscall.RawConn) error {
	return errors.New("SO_REUSEPORT load balancing needs Linux")
}
