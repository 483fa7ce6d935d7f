//go:build linux

package server

// loopConnCounts returns how many connections each loop holds.
func loopConnCounts(s *Server) []int {
	var counts []int
	for _, l := range s.eng.loops {
		counts = append(counts, int(l.conns.Load()))
	}
	return counts
}
