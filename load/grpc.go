package load

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// gRPC calls (Config.GRPC): the request is Config's (a POST of one
// length-prefixed message, made once by the command); the response's
// DATA is read by grpcFrames to count its messages, and its grpc-status
// comes from the trailers, or the headers of a trailers-only response,
// through the engine's HeaderFunc. At the stream's end the call's status
// is counted by code in the loop's grpcStats. Nothing here allocates per
// call.

// The gRPC status codes this file names.
const (
	grpcOK                = 0
	grpcUnknown           = 2
	grpcPermissionDenied  = 7
	grpcResourceExhausted = 8
	grpcUnimplemented     = 12
	grpcInternal          = 13
	grpcUnavailable       = 14
	grpcUnauthenticated   = 16
)

// grpcCall is the state of one call in flight, kept in its stream's slot.
type grpcCall struct {
	frames grpcFrames
	status int16 // grpc-status + 1; 0 before one arrives
	// encoded: the response named a grpc-encoding other than identity,
	// so its messages may be compressed.
	encoded bool
	// A streamed call (grpcstream.go): its messages handed to the stream,
	// when the next is due (with an interval), and when the last response
	// message arrived (0 before the first).
	msg  []byte // the message each send repeats (the stream's body)
	sent int32
	next int64
	last int64
}

// header sees one response header or trailer field of the call.
func (c *grpcCall) header(name, value string) {
	switch name {
	case "grpc-status":
		c.status = int16(parseGRPCStatus(value)) + 1
	case "grpc-encoding":
		c.encoded = value != "" && value != "identity"
	}
}

// code returns the call's status at its end: the grpc-status the server
// sent; without one, what its HTTP status means to a gRPC client (RFC-less
// but as gRPC's HTTP/2 protocol document maps it); a body that breaks the
// message framing, or a compressed message in a response that named no
// grpc-encoding, turns an OK (or missing) status into INTERNAL, a message
// over the limit into RESOURCE_EXHAUSTED.
func (c *grpcCall) code(httpStatus int) int {
	code := int(c.status) - 1
	if c.status == 0 {
		code = grpcFromHTTP(httpStatus)
	}
	if code == grpcOK || c.status == 0 {
		switch c.frames.end() {
		case grpcFrameTooLarge:
			return grpcResourceExhausted
		case grpcFrameBadFlag, grpcFrameCut:
			return grpcInternal
		}
		if c.frames.compressed && !c.encoded {
			return grpcInternal
		}
	}
	return code
}

// parseGRPCStatus reads a grpc-status value: a decimal code. A code gRPC
// does not define is UNKNOWN; a value that is not a number, INTERNAL (as
// gRPC's clients treat a malformed status).
func parseGRPCStatus(v string) int {
	if v == "" || len(v) > 4 {
		return grpcInternal
	}
	n := 0
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return grpcInternal
		}
		n = n*10 + int(v[i]-'0')
	}
	if n >= result.NumGRPCCodes {
		return grpcUnknown
	}
	return n
}

// grpcFromHTTP is the status of a call answered without grpc-status: by
// its HTTP status, as gRPC's clients map it; a 200 without a status is
// INTERNAL.
func grpcFromHTTP(status int) int {
	switch status {
	case 200, 400:
		return grpcInternal
	case 401:
		return grpcUnauthenticated
	case 403:
		return grpcPermissionDenied
	case 404:
		return grpcUnimplemented
	case 429, 502, 503, 504:
		return grpcUnavailable
	}
	return grpcUnknown
}

// grpcStats is one loop's gRPC counts: calls by status code, messages
// received and sent, and the streams' timings (grpcstream.go), their
// histograms made with the record.
type grpcStats struct {
	status   [result.NumGRPCCodes]int64
	messages int64
	sent     int64
	// firstMessage, gap: a server stream's time to its first message and
	// between messages; message: a bidirectional call's time from
	// sending each message to the response message of the same number.
	firstMessage, gap, message *hdrhistogram.Histogram
}

// grpc returns the loop's gRPC counts, made on first use.
func (l *loop) grpc() *grpcStats {
	if l.stats.grpc == nil {
		l.stats.grpc = &grpcStats{firstMessage: result.NewHistogram(), gap: result.NewHistogram(), message: result.NewHistogram()}
	}
	return l.stats.grpc
}

// grpcEnd records the end of call x with its status code and the
// messages its response held, unless it was sent before measurement.
func (d *delivery) grpcEnd(x exchange, code int, msgs int64) {
	l := d.l
	if !l.recording || d.c.uncounted > 0 {
		return
	}
	g := l.grpc()
	g.status[code]++
	g.messages += msgs
}

// result returns s as a result.GRPC; nil s gives nil.
func (s *grpcStats) result() *result.GRPC {
	if s == nil {
		return nil
	}
	g := result.NewGRPC()
	g.Messages, g.Sent = s.messages, s.sent
	g.FirstMessage, g.Gap, g.MessageLatency = s.firstMessage, s.gap, s.message
	for code, n := range s.status {
		if n > 0 {
			g.Status[result.GRPCCodeName(code)] = n
		}
	}
	return g
}
