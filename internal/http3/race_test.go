//go:build race

package http3

// raceEnabled: the race detector makes sync.Pool drop items (x/net's
// Huffman decoder pools its buffers), so allocation counts are skipped.
const raceEnabled = true
