package result

// HTTP2 is what a run over HTTP/2 measured beyond what every run does:
// how many streams each connection kept busy, and the frames that ended
// streams or connections, by their error code's RFC 9113 name
// ("REFUSED_STREAM", "NO_ERROR", "ERR_0x1f" for a code the RFC does not
// name). A request a reset or GOAWAY failed is also counted in
// Result.Errors (ErrStreamReset, ErrGoAway).
type HTTP2 struct {
	// Streams is how many streams each connection kept in flight at most
	// (gust load -m), before the server's SETTINGS_MAX_CONCURRENT_STREAMS.
	Streams int
	// MaxConcurrent is the lowest SETTINGS_MAX_CONCURRENT_STREAMS a server
	// announced (0 when none was announced: unlimited).
	MaxConcurrent int64
	// Resets counts RST_STREAM frames received, by error code.
	Resets map[string]int64
	// GoAways counts GOAWAY frames received, by error code.
	GoAways map[string]int64
	// Retried counts requests sent again on a new connection because a
	// GOAWAY's last stream id said the server never processed them.
	Retried int64
}

// NewHTTP2 returns an HTTP2 with its maps made.
func NewHTTP2(streams int) *HTTP2 {
	return &HTTP2{Streams: streams, Resets: make(map[string]int64), GoAways: make(map[string]int64)}
}

// add adds r's counts to h; Streams is h's.
func (h *HTTP2) add(r *HTTP2) {
	if r == nil {
		return
	}
	for code, n := range r.Resets {
		h.Resets[code] += n
	}
	for code, n := range r.GoAways {
		h.GoAways[code] += n
	}
	h.Retried += r.Retried
	if r.MaxConcurrent > 0 && (h.MaxConcurrent == 0 || r.MaxConcurrent < h.MaxConcurrent) {
		h.MaxConcurrent = r.MaxConcurrent
	}
}
