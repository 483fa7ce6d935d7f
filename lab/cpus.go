package lab

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
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

// SplitCPUs divides cpus in two halves: servers get the first, the load
// generator the second. With one CPU both share it.
func SplitCPUs(cpus CPUSet) (server, client CPUSet) {
	if len(cpus) < 2 {
		return cpus, cpus
	}
	h := len(cpus) / 2
	return cpus[:h], cpus[h:]
}

// runtimeCPUs is how many CPUs the load generator may use.
func runtimeCPUs() int { return runtime.GOMAXPROCS(0) }
