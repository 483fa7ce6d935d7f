package main

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// workerProcAttr puts a worker in a process group of its own, so that a
// terminal's Ctrl-C reaches only the parent, which forwards it once, and
// has the kernel send the worker SIGTERM if the parent dies without
// stopping it.
func workerProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// setReusePort sets SO_REUSEPORT on a listening socket before it is bound,
// so that the workers' listeners share one port and the kernel spreads new
// connections over them.
func setReusePort(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
