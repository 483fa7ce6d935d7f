package load

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// maxStatus bounds the status codes counted in a fixed array; the parser
// accepts exactly three digits, so every code fits.
const maxStatus = 1000

// stats is one event loop's counters. Only its loop writes it, so nothing
// on the hot path is atomic or locked.
type stats struct {
	requests     int64
	bytesRead    int64
	bytesWritten int64
	connects     int64
	reconnects   int64
	retried      int64 // sent again: lost unanswered by a closing HTTP/1.1 or WebSocket connection
	late         int64
	status       [maxStatus]int64
	errors       [result.NumErrorKinds]int64
	latency      *hdrhistogram.Histogram
	connect      *hdrhistogram.Histogram
	lateness     *hdrhistogram.Histogram
	h2           h2stats
	ws           wsStats      // a WebSocket run's; its sessions hold a pointer to it
	stream       *streamStats // streamed responses' (stream.go); nil until the first
	grpc         *grpcStats   // gRPC calls' (grpc.go); nil until the first
}

func newStats() *stats {
	return &stats{latency: result.NewHistogram(), connect: result.NewHistogram(), lateness: result.NewHistogram()}
}

// reset clears what measurement counts, keeping the connects and
// WebSocket upgrades made before it started (the ramp).
func (s *stats) reset() {
	latency, connect, lateness, connects := s.latency, s.connect, s.lateness, s.connects
	latency.Reset()
	lateness.Reset()
	*s = stats{latency: latency, connect: connect, lateness: lateness, connects: connects, ws: wsStats{wsRamp: s.ws.wsRamp}}
}

// mergeInto adds s, and the loop's TLS handshakes (nil for a plain run),
// to the run's Result.
func (s *stats) mergeInto(r *result.Result, tls *tlsStats, q *quicStats) {
	part := result.Result{
		Requests:     s.requests,
		BytesRead:    s.bytesRead,
		BytesWritten: s.bytesWritten,
		Connects:     s.connects,
		Reconnects:   s.reconnects,
		Retried:      s.retried,
		Late:         s.late,
		Latency:      s.latency,
		Connect:      s.connect,
		Lateness:     s.lateness,
		Status:       make(map[int]int64),
		Errors:       make(map[result.ErrorKind]int64),
		TLS:          tls.result(),
		QUIC:         q.result(),
		Stream:       s.stream.result(),
		GRPC:         s.grpc.result(),
	}
	for code, n := range s.status {
		if n > 0 {
			part.Status[code] = n
		}
	}
	for kind, n := range s.errors {
		if n > 0 {
			part.Errors[result.ErrorKind(kind)] = n
		}
	}
	if r.HTTP2 != nil {
		s.h2.addTo(r.HTTP2)
	}
	r.Add(&part)
}

// usec converts nanoseconds to whole microseconds for the histograms, never
// below the histogram's lowest value.
func usec(ns int64) int64 {
	us := ns / 1000
	if us < result.HistMin {
		return result.HistMin
	}
	if us > result.HistMax {
		return result.HistMax
	}
	return us
}
