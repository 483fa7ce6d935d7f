//go:build !linux && !windows

package server

import "syscall"

// markCloseOnExec sets close-on-exec on an inherited descriptor.
func markCloseOnExec(fd int) error {
	syscall.CloseOnExec(fd)
	return nil
}
