package http3

import "github.com/gust-http/gust/internal/quic"

// HTTP/3 frames and stream types count with QUIC's variable-length
// integers (RFC 9000 section 16), internal/quic's. parseVarint is
// quic.ParseVarint in the shape the frame reader wants: n == 0 when b
// holds only part of the integer (more bytes are to come).
func parseVarint(b []byte) (v uint64, n int) {
	v, n, err := quic.ParseVarint(b)
	if err != nil {
		return 0, 0
	}
	return v, n
}
