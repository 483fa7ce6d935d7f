package load

import (
	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/result"
)

// h2Codes is how many HTTP/2 error codes are counted one by one; codes
// past RFC 9113's are counted together in the last entry.
const h2Codes = 16

// h2stats is a loop's HTTP/2 counters: fixed arrays, so counting a reset
// or a GOAWAY allocates nothing.
type h2stats struct {
	resets  [h2Codes]int64
	goAways [h2Codes]int64
	retried int64
}

// codeIndex returns code's entry in h2stats' arrays.
func codeIndex(code uint32) int { return int(min(code, h2Codes-1)) }

// codeName names the entry i of h2stats' arrays.
func codeName(i int) string {
	if i == h2Codes-1 {
		return "other"
	}
	return http2.ErrCode(i).String()
}

// addTo adds s to h.
func (s *h2stats) addTo(h *result.HTTP2) {
	for i := range h2Codes {
		if n := s.resets[i]; n > 0 {
			h.Resets[codeName(i)] += n
		}
		if n := s.goAways[i]; n > 0 {
			h.GoAways[codeName(i)] += n
		}
	}
	h.Retried += s.retried
}
