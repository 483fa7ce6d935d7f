//go:build linux

package lab

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// AllowedCPUs returns the CPUs this process may run on.
func AllowedCPUs() (CPUSet, error) {
	var m unix.CPUSet
	if err := unix.SchedGetaffinity(0, &m); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var set CPUSet
	for c := 0; c < 1024; c++ {
		if m.IsSet(c) {
			set = append(set, c)
		}
	}
	return set, nil
}

// PinProcess restricts every thread of this process to set (threads made
// later inherit it from their creators) and sets GOMAXPROCS to its size.
func PinProcess(set CPUSet) error {
	var m unix.CPUSet
	for _, c := range set {
		m.Set(c)
	}
	for range 2 { // a second pass catches threads started during the first
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &m); err != nil {
				return fmt.Errorf("pin to CPUs %s: %w", set, err)
			}
		}
	}
	runtime.GOMAXPROCS(len(set))
	return nil
}

// RaiseOpenFiles raises the open-file limit to the hard limit and returns
// it. syscall.Setrlimit also makes child processes inherit the new limit.
func RaiseOpenFiles() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	r.Cur = r.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	return r.Cur, nil
}
