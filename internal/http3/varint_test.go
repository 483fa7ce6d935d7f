package http3

import (
	"testing"

	"github.com/gust-http/gust/internal/quic"
)

// TestParseVarintWaitsForMore: the frame reader's parseVarint reports a
// part of an integer as n == 0 (more bytes to come), a whole one as
// internal/quic parses it.
func TestParseVarintWaitsForMore(t *testing.T) {
	for _, v := range []uint64{0, 63, 64, 16383, 16384, 1<<30 - 1, 1 << 30, quic.MaxVarint} {
		b := quic.AppendVarint(nil, v)
		if got, n := parseVarint(b); got != v || n != len(b) {
			t.Errorf("%d: parsed %d in %d bytes, want %d in %d", v, got, n, v, len(b))
		}
		if _, n := parseVarint(b[:len(b)-1]); n != 0 {
			t.Errorf("%d: a part of its encoding parsed", v)
		}
	}
}
