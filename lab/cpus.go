package lab

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// CPUSet is a list of CPU numbers.
type CPUSet []int

// String returns the set as taskset -c takes it: "0,1".
func (s CPUSet) String() string {
	p := make([]string, len(s))
	for i, c := range s {
		p[i] = strconv.Itoa(c)
	}
	return strings.Join(p, ",")
}

// ParseCPUSet parses "0,2-3".
func ParseCPUSet(s string) (CPUSet, error) {
	var set CPUSet
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("bad CPU list %q: want e.g. 0,2-3", s)
		}
		for c := a; c <= b; c++ {
			set = append(set, c)
		}
	}
	return set, nil
}

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

// SplitCPUs divides cpus in two halves: servers get the first, the load
// generator the second. With one CPU both share it.
func SplitCPUs(cpus CPUSet) (server, client CPUSet) {
	if len(cpus) < 2 {
		return cpus, cpus
	}
	h := len(cpus) / 2
	return cpus[:h], cpus[h:]
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

// runtimeCPUs is how many CPUs the load generator may use.
func runtimeCPUs() int { return runtime.GOMAXPROCS(0) }

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
