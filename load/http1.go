package load

import (
	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/result"
)

// respPhase is where the HTTP/1.1 parser is within the current response.
type respPhase uint8

const (
	phHead       respPhase = iota // expecting a status line and headers
	phLength                      // skipping a Content-Length body
	phChunked                     // decoding a chunked body
	phUntilClose                  // body ends when the server closes
)

// h1session is HTTP/1.1's session: requests go out as serialized, up to
// the pipeline depth, and responses come back in order, so the exchanges
// in flight are a ring, oldest first.
type h1session struct {
	sent ring[exchange] // the exchanges in flight, oldest first

	phase      respPhase
	head       http1.ResponseHead
	status     int
	closeAfter bool  // the server said it closes after this response
	interim    bool  // an interim (1xx) response to the oldest request arrived
	forceClose bool  // the requests said Connection: close (no keep-alive)
	remaining  int64 // body bytes left in phLength
	chunk      http1.ChunkedDecoder
	pending    []byte    // an incomplete response head carried to the next read
	keep       *flowResp // a flow user's answer, kept for its captures and checks; nil otherwise

	// The response read as a stream (stream.go): every one with
	// sseAll or streamAll (Config.SSE, Config.Stream), and any
	// text/event-stream answer.
	stream            streamReader
	sseAll, streamAll bool
}

// newH1Session returns a session keeping up to depth requests in flight.
// With forceClose, every response ends the connection, as the requests
// asked, even if the server does not say so.
func newH1Session(depth int, forceClose bool) *h1session {
	return &h1session{sent: newRing[exchange](depth), forceClose: forceClose}
}

// newH1SessionFor is newH1Session as cfg asks, streams included.
func newH1SessionFor(cfg *Config) *h1session {
	s := newH1Session(cfg.Pipeline, cfg.DisableKeepAlive)
	s.sseAll, s.streamAll = cfg.SSE, cfg.Stream
	return s
}

func (s *h1session) start(out []byte) []byte { return out }
func (s *h1session) room() int               { return s.sent.room() }
func (s *h1session) inflight() int           { return s.sent.len() }
func (s *h1session) closing() bool           { return s.closeAfter }
func (s *h1session) stalled() bool           { return false }
func (s *h1session) multiplexed() bool       { return false }
func (s *h1session) expire(int64, sink)      {}

func (s *h1session) at(i int) exchange { return s.sent.at(i) }

func (s *h1session) send(out []byte, req *request, x exchange) []byte {
	s.sent.push(x)
	return req.appendHTTP1(out)
}

// pop removes the oldest exchange in flight and returns it.
func (s *h1session) pop() exchange { return s.sent.pop() }

// done completes the oldest exchange with the current status.
func (s *h1session) done(k sink) {
	s.phase = phHead
	s.interim = false
	if s.keep != nil {
		s.keep.onDone()
	}
	s.stream.end(k, s.sent.at(0))
	k.complete(s.pop(), s.status)
}

func (s *h1session) reset() {
	s.stream = streamReader{} // a stream cut off is not timed to an end
	s.sent.reset()
	s.phase = phHead
	s.interim = false
	s.closeAfter = false
	s.pending = s.pending[:0]
}

// untouched reports that no byte of the oldest response in flight has
// arrived (an interim 1xx response is some).
func (s *h1session) untouched() bool { return s.phase == phHead && len(s.pending) == 0 && !s.interim }

func (s *h1session) eof(k sink) {
	if s.phase == phUntilClose && s.sent.len() > 0 {
		s.done(k)
	}
}

// feed parses received bytes in place, completing responses as they end.
func (s *h1session) feed(data []byte, k sink) (result.ErrorKind, bool) {
	if len(s.pending) > 0 {
		s.pending = append(s.pending, data...)
		data = s.pending
	}
	for len(data) > 0 {
		switch s.phase {
		case phHead:
			if s.sent.len() == 0 || s.closeAfter {
				return result.ErrProtocol, false // bytes nobody asked for
			}
			n, err := http1.ParseResponseHead(data, maxResponseHead, &s.head)
			if err == http1.ErrIncomplete {
				s.pending = append(s.pending[:0], data...)
				return 0, true
			}
			if err != nil {
				return result.ErrProtocol, false
			}
			if s.keep != nil && s.head.StatusCode >= 200 {
				s.keep.onHead(data[:n], s.head.StatusCode)
			}
			data = data[n:]
			if s.head.StatusCode < 200 {
				if s.head.StatusCode == 101 {
					return result.ErrProtocol, false // an upgrade we never asked for
				}
				s.interim = true
				continue // interim response: the final one follows
			}
			s.status = s.head.StatusCode
			if s.head.EventStream || s.sseAll || s.streamAll {
				s.stream.begin(k, s.sent.at(0), s.head.EventStream, s.sseAll, s.streamAll)
			}
			// Without keep-alive the request said close: close even if the
			// server does not.
			s.closeAfter = s.head.Close || s.forceClose
			switch s.head.Body(s.sent.at(0).meta&metaHead != 0) {
			case http1.BodyNone:
				s.done(k)
			case http1.BodyLength:
				s.phase, s.remaining = phLength, s.head.ContentLength
			case http1.BodyChunked:
				s.phase = phChunked
				s.chunk.Reset()
			case http1.BodyUntilClose:
				s.phase = phUntilClose
				s.closeAfter = true
			}
		case phLength:
			k64 := min(int64(len(data)), s.remaining)
			if s.keep != nil {
				s.keep.onBody(data[:k64])
			}
			s.stream.body(k, s.sent.at(0), data[:k64])
			data = data[k64:]
			s.remaining -= k64
			if s.remaining == 0 {
				s.done(k)
			}
		case phChunked:
			n, body, done, err := s.chunk.Decode(data)
			if err != nil {
				return result.ErrProtocol, false
			}
			if s.keep != nil {
				s.keep.onBody(body)
			}
			s.stream.body(k, s.sent.at(0), body)
			data = data[n:]
			if done {
				s.done(k)
			}
		case phUntilClose:
			if s.keep != nil {
				s.keep.onBody(data)
			}
			s.stream.body(k, s.sent.at(0), data)
			data = data[len(data):]
		}
	}
	s.pending = s.pending[:0]
	return 0, true
}
