package load

import "net/netip"

// sourceAddrs are the local addresses a loop binds its connections to, in
// turn (Config.SourceAddrs); empty: the kernel picks, as for any connect.
type sourceAddrs struct {
	addrs []sourceAddr
	i     int
}

// newSourceAddrs starts loop number loop at its own place in addrs, so
// that loops spread their connections over all of them.
func newSourceAddrs(addrs []netip.Addr, loop int) sourceAddrs {
	s := sourceAddrs{addrs: make([]sourceAddr, len(addrs))}
	for i, a := range addrs {
		s.addrs[i] = newSourceAddr(a)
	}
	if len(addrs) > 0 {
		s.i = loop % len(addrs)
	}
	return s
}

// next returns the address the next connection binds to, or nil.
func (s *sourceAddrs) next() *sourceAddr {
	if len(s.addrs) == 0 {
		return nil
	}
	a := &s.addrs[s.i]
	s.i++
	if s.i == len(s.addrs) {
		s.i = 0
	}
	return a
}
