//go:build !linux

package lab

import (
	"errors"
	"runtime"
)

// errNoAffinity is what the CPU calls return where gust bench cannot pin
// processes: the benchmark lab needs Linux (taskset, /proc).
var errNoAffinity = errors.New("gust bench pins processes to CPUs and reads /proc: it needs Linux")

// AllowedCPUs returns the CPUs the runtime sees; pinning is unavailable here.
func AllowedCPUs() (CPUSet, error) {
	set := make(CPUSet, runtime.NumCPU())
	for i := range set {
		set[i] = i
	}
	return set, nil
}

// PinProcess is unavailable on this platform.
func PinProcess(set CPUSet) error { return errNoAffinity }

// RaiseOpenFiles is unavailable on this platform.
func RaiseOpenFiles() (uint64, error) { return 0, errNoAffinity }
