package load

import (
	"math/rand/v2"
	"time"

	"github.com/gust-http/gust/internal/quic"
)

// h3Bad is a kind of QUIC-level bad input the test server sends.
type h3Bad int

const (
	// badGarbage: a datagram of random bytes after every answer.
	badGarbage h3Bad = iota + 1
	// badTruncated: every 5th datagram after a connection's first 10
	// cut to half its length (its packet fails authentication).
	badTruncated
	// badOversized: every 5th datagram after a connection's first 10
	// also sent padded to 4,000 bytes, past the 1,452 the client's
	// max_udp_payload_size allows.
	badOversized
	// badFlowControl: instead of its 10th answer, a connection sends
	// STREAM data on that request's stream at 2 MiB, past the client's
	// 1 MiB window (RFC 9000 section 4.1).
	badFlowControl
	// badFrameType: instead of its 10th answer, a connection sends a
	// packet holding a frame of the unknown type 0x21 (RFC 9000 section
	// 12.4).
	badFrameType
	// badHandshakeClose: the second and third connections (the run's
	// first two, after the probe's) get CONNECTION_CLOSE with
	// CONNECTION_REFUSED during their handshakes.
	badHandshakeClose
)

// send writes d to c's client, as the options' bad input says.
func (s *h3TestServer) send(c *h3ServerConn, d []byte) {
	c.sent++
	late := c.sent > 10 && c.sent%5 == 0
	switch {
	case s.opts.bad == badTruncated && late:
		d = d[:len(d)/2]
		s.sentJunk()
	case s.opts.bad == badOversized && late:
		big := make([]byte, 4000)
		copy(big, d)
		s.udp.WriteToUDP(big, c.peer)
		s.sentJunk()
	}
	s.udp.WriteToUDP(d, c.peer)
}

// badStream sends, for the request on stream id, the bad input the
// options say instead of its answer, and reports whether it did.
func (s *h3TestServer) badStream(c *h3ServerConn, id uint64) bool {
	now := time.Now()
	var frames []byte
	switch {
	case s.opts.bad == badGarbage:
		g := make([]byte, 1200)
		for i := range g {
			g[i] = byte(rand.Uint32())
		}
		g[0] = 0x40 | g[0]&0x3f // a short header's fixed bit
		s.udp.WriteToUDP(g, c.peer)
		s.sentJunk()
		return false
	case c.answered != 9:
		return false
	case s.opts.bad == badFlowControl:
		frames = quic.AppendStreamFrame(nil, id, 2<<20, []byte("past the window"), false, true)
	case s.opts.bad == badFrameType:
		frames = []byte{0x21, 0, 0, 0}
	default:
		return false
	}
	p, err := c.qc.SealRawFrames(frames, now)
	if err != nil {
		s.t.Errorf("test server: %v", err)
		return false
	}
	s.udp.WriteToUDP(p, c.peer)
	c.answered++ // once per connection
	return true
}

// peerClosed returns how many connections the client closed with name
// (as closeName names it from the server's side).
func (s *h3TestServer) peerClosed(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peerCloses[name]
}

// sentJunk counts a datagram sent that the client must drop.
func (s *h3TestServer) sentJunk() {
	s.mu.Lock()
	s.junk++
	s.mu.Unlock()
}

// junkSent returns the datagrams sent that the client must drop.
func (s *h3TestServer) junkSent() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.junk
}
