package lab

import (
	"fmt"
	"runtime"
	"slices"
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

// ChooseCPUs returns the CPUs for the servers and for the load generator:
// the two halves of allowed (SplitCPUs), or the lists given as server and
// client ("0-3", as ParseCPUSet reads them) where not empty. Every CPU must
// be among allowed.
func ChooseCPUs(allowed CPUSet, server, client string) (serverCPUs, clientCPUs CPUSet, err error) {
	serverCPUs, clientCPUs = SplitCPUs(allowed)
	if server != "" {
		if serverCPUs, err = ParseCPUSet(server); err != nil {
			return nil, nil, fmt.Errorf("--server-cpus: %w", err)
		}
	}
	if client != "" {
		if clientCPUs, err = ParseCPUSet(client); err != nil {
			return nil, nil, fmt.Errorf("--client-cpus: %w", err)
		}
	}
	for _, c := range append(slices.Clone(serverCPUs), clientCPUs...) {
		if !slices.Contains(allowed, c) {
			return nil, nil, fmt.Errorf("CPU %d is not among the allowed CPUs %s", c, allowed)
		}
	}
	return serverCPUs, clientCPUs, nil
}
