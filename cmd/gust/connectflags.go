package main

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/load"
)

// connectFlags are gust load's flags for how connections are opened: the
// ramp (--connect-rate) and the local addresses (--source-addrs).
type connectFlags struct {
	rate    float64
	sources string
}

func addConnectFlags(fl *pflag.FlagSet, f *connectFlags) {
	fl.Float64Var(&f.rate, "connect-rate", 0, "open connections (first ones and reconnects) at this many per second in total, evenly spaced (0: as fast as possible)")
	fl.StringVar(&f.sources, "source-addrs", "", "bind connections to these local addresses in turn, a range or a list (e.g. 127.0.0.1-127.0.0.64 or 127.0.0.2,127.0.0.3): one source address has about 28,000 ports to a target")
}

// apply puts the flags into cfg.
func (f *connectFlags) apply(cfg *load.Config) error {
	if f.rate < 0 {
		return fmt.Errorf("--connect-rate must not be negative, got %g", f.rate)
	}
	cfg.ConnectRate = f.rate
	if f.sources != "" {
		addrs, err := parseAddrRanges(f.sources)
		if err != nil {
			return fmt.Errorf("--source-addrs: %w", err)
		}
		cfg.SourceAddrs = addrs
	}
	return nil
}

// maxSourceAddrs bounds a --source-addrs list, so that a typo in a range
// (127.0.0.1-127.0.255.255) is an error rather than a huge list.
const maxSourceAddrs = 4096

// parseAddrRanges parses a comma-separated list of addresses and ranges
// FIRST-LAST (inclusive, same family, first not after last).
func parseAddrRanges(s string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		first, last, isRange := strings.Cut(part, "-")
		a, err := netip.ParseAddr(strings.TrimSpace(first))
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or FIRST-LAST range", part)
		}
		b := a
		if isRange {
			if b, err = netip.ParseAddr(strings.TrimSpace(last)); err != nil {
				return nil, fmt.Errorf("%q is not an IP address or FIRST-LAST range", part)
			}
			if a.Is4() != b.Is4() || b.Less(a) {
				return nil, fmt.Errorf("range %q must go up, within one address family", part)
			}
		}
		for x := a; ; x = x.Next() {
			if len(out) == maxSourceAddrs {
				return nil, fmt.Errorf("more than %d addresses", maxSourceAddrs)
			}
			out = append(out, x)
			if x == b {
				break
			}
		}
	}
	return out, nil
}
