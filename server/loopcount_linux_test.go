//go:build linux

package server

// loopConnCounts returns how many connections each loop holds, for tests;
// read while the loops may run, so only for quiescent servers.
func loopConnCounts(s *Server) []int {
	var counts []int
	for _, l := range s.eng.loops {
		n := 0
		for _, c := range l.byFD {
			if c != nil {
				n++
			}
		}
		counts = append(counts, n)
	}
	return counts
}
