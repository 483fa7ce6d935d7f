package server

import (
	"net"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/quic"
)

// h3GetRequest is a GET / request's HEADERS frame.
func h3GetRequest() []byte {
	sec := http3.AppendSectionPrefix(nil)
	sec = http3.AppendField(sec, ":method", "GET")
	sec = http3.AppendField(sec, ":scheme", "https")
	sec = http3.AppendField(sec, ":authority", "localhost")
	sec = http3.AppendField(sec, ":path", "/")
	return http3.AppendHeaders(nil, sec)
}

// h3Answered asks c for / and fails the test unless it is answered.
func h3Answered(t *testing.T, c *h3RawClient, when string) {
	t.Helper()
	resp, code := c.request(h3GetRequest())
	if code != 0 || len(resp) == 0 {
		t.Errorf("the working connection %s: response %q, reset %#x; want an answer", when, resp, code)
	}
}

// A client that opens every request stream the server allows, leaves
// them unfinished, then one more is closed with STREAM_LIMIT_ERROR (RFC
// 9000 section 4.6); a working connection beside it is answered before
// and after.
func TestHTTP3StreamsPastTheLimit(t *testing.T) {
	_, addr := startH3(t, Config{Mode: Inline})
	work := dialH3Raw(t, addr)
	h3Answered(t, work, "before the attack")

	c := dialH3Raw(t, addr)
	n := c.qc.StreamsAvailable(false)
	if n == 0 {
		t.Fatal("the server allows no request stream")
	}
	req := h3GetRequest()
	for range n {
		id, err := c.qc.OpenStream(false)
		if err != nil {
			t.Fatal(err)
		}
		c.qc.Write(id, req) // not ended: the stream keeps its place under the limit
	}
	c.flush()
	// Client-initiated bidirectional stream n, ID 4n, is the first a
	// limit of n does not allow.
	c.sendRaw(quic.AppendStreamFrame(nil, uint64(4*n), 0, req, true, true))
	if ce := c.closedBy(); ce.Application || ce.Code != uint64(quic.StreamLimitError) {
		t.Errorf("stream %d past a limit of %d: the server closed with %v; want STREAM_LIMIT_ERROR", 4*n, n, ce)
	}
	h3Answered(t, work, "after the attack")
}

// Stream data past the windows the server advertised closes the
// connection with FLOW_CONTROL_ERROR (RFC 9000 section 4.1), whichever
// window it passes; a working connection beside it goes on being answered.
func TestHTTP3FlowControlViolation(t *testing.T) {
	_, addr := startH3(t, Config{Mode: Inline})
	work := dialH3Raw(t, addr)
	h3Answered(t, work, "before the attacks")
	for _, tc := range []struct {
		name   string
		frames func(t *testing.T, c *h3RawClient, p quic.TransportParameters) []byte
	}{
		{"a byte past a stream's window", func(t *testing.T, c *h3RawClient, p quic.TransportParameters) []byte {
			id, _ := c.qc.OpenStream(false)
			return quic.AppendStreamFrame(nil, id, p.InitialMaxStreamDataBidiRemote, []byte{0}, false, true)
		}},
		{"a reset stream whose final size is past its window", func(t *testing.T, c *h3RawClient, p quic.TransportParameters) []byte {
			id, _ := c.qc.OpenStream(false)
			return quic.AppendFrame(nil, &quic.Frame{Type: quic.FrameResetStream, StreamID: id, FinalSize: p.InitialMaxStreamDataBidiRemote + 1})
		}},
		{"streams each within their windows, together past the connection's", func(t *testing.T, c *h3RawClient, p quic.TransportParameters) []byte {
			win := p.InitialMaxStreamDataBidiRemote
			n := int(p.InitialMaxData/win) + 1
			if n > c.qc.StreamsAvailable(false) {
				t.Fatalf("%d streams needed to pass MAX_DATA %d with windows of %d; the server allows %d", n, p.InitialMaxData, win, c.qc.StreamsAvailable(false))
			}
			var frames []byte
			for range n {
				id, _ := c.qc.OpenStream(false)
				frames = quic.AppendStreamFrame(frames, id, win-1, []byte{0}, false, true)
			}
			return frames
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialH3Raw(t, addr)
			p := c.qc.PeerTransportParameters()
			if p.InitialMaxStreamDataBidiRemote == 0 || p.InitialMaxData == 0 {
				t.Fatalf("the server's windows: stream %d, connection %d", p.InitialMaxStreamDataBidiRemote, p.InitialMaxData)
			}
			frames := tc.frames(t, c, p)
			c.flush()
			c.sendRaw(frames)
			if ce := c.closedBy(); ce.Application || ce.Code != uint64(quic.FlowControlError) {
				t.Errorf("the server closed with %v; want FLOW_CONTROL_ERROR", ce)
			}
			h3Answered(t, work, "after the attack")
		})
	}
}

// A client that sends its first flight and never another datagram: the
// server sends at most three times what it received (RFC 9000 section
// 8.1), its retransmissions and its close included, and gives the
// handshake up at ReadHeaderTimeout; a working connection beside it is
// answered meanwhile.
func TestHTTP3AmplificationLimit(t *testing.T) {
	s, addr := startH3(t, Config{Mode: Inline, ReadHeaderTimeout: time.Second})
	work := dialH3Raw(t, addr)
	base, accepted := s.Stats().QUICConns, s.Stats().Accepted
	udp, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	qc := newH3ClientConn(t)
	defer qc.Abandon()
	sent := 0
	for { // the whole ClientHello: its post-quantum key share takes two datagrams
		d, ok := qc.AppendDatagram(nil, time.Now())
		if !ok {
			break
		}
		udp.Write(d)
		sent += len(d)
	}
	h3WaitFor(t, "the handshake started", 5*time.Second, func() bool { return s.Stats().Accepted > accepted })
	got := 0
	buf := make([]byte, 4096)
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().QUICConns > base {
		if time.Now().After(deadline) {
			t.Fatalf("the unanswered handshake still open after %v; ReadHeaderTimeout is 1 s", 5*time.Second)
		}
		h3Answered(t, work, "while the server waits for the handshake")
		udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		for {
			n, err := udp.Read(buf)
			if err != nil {
				break
			}
			got += n
		}
	}
	// The close sent as the server gave up may still be on its way.
	udp.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	for {
		n, err := udp.Read(buf)
		if err != nil {
			break
		}
		got += n
	}
	t.Logf("the server sent %d bytes for the %d it received", got, sent)
	if got < 1200 || got > 3*sent {
		t.Errorf("server sent %d bytes for the %d it received; want its first flight (1,200 bytes at least), at most %d", got, sent, 3*sent)
	}
}

// A client that completes the handshake, sends a request and then
// nothing, not even an ACK: the server's sending is bounded by its
// congestion window and PTO backoff, and its idle timeout ends the
// connection; a working connection beside it is answered meanwhile.
func TestHTTP3NoAckAfterHandshake(t *testing.T) {
	const idle = 2 * time.Second
	s, addr := startH3(t, Config{Mode: Inline, IdleTimeout: idle})
	work := dialH3Raw(t, addr)
	base := s.Stats().QUICConns

	c := dialH3Raw(t, addr)
	if s.Stats().QUICConns != base+1 {
		t.Fatalf("%d QUIC connections open; want %d", s.Stats().QUICConns, base+1)
	}
	id, err := c.qc.OpenStream(false)
	if err != nil {
		t.Fatal(err)
	}
	c.qc.Write(id, h3GetRequest())
	c.qc.CloseWrite(id)
	c.flush() // the last datagrams this client sends
	last := time.Now()
	got := 0
	for s.Stats().QUICConns > base {
		if time.Since(last) > idle+2*time.Second {
			t.Fatalf("the silent connection still open %v after its last datagram; the idle timeout is %v", time.Since(last).Round(time.Millisecond), idle)
		}
		h3Answered(t, work, "while the silent connection is open")
		c.udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		for {
			n, err := c.udp.Read(c.buf)
			if err != nil {
				break
			}
			got += n
		}
	}
	gone := time.Since(last)
	t.Logf("the server sent %d bytes unacknowledged and let the connection go %v after the client's last datagram", got, gone.Round(time.Millisecond))
	// Without ACKs the congestion window never opens past its initial
	// 14,720 bytes (RFC 9002 section 7.2), and each PTO, backed off,
	// sends at most two datagrams (section 6.2.4): ten of them are more
	// than fit in the idle timeout.
	if bound := 14720 + 10*2*1452; got > bound {
		t.Errorf("the server sent %d bytes to a client that acknowledged nothing; want at most %d", got, bound)
	}
	if gone < idle-100*time.Millisecond {
		t.Errorf("the connection closed %v after the client's last datagram, before the idle timeout of %v", gone, idle)
	}
	h3Answered(t, work, "after the silent connection is gone")
}

// An insert on the client's QPACK encoder stream, which the server's
// dynamic table of capacity 0 does not allow, closes the connection with
// QPACK_ENCODER_STREAM_ERROR (RFC 9204 section 4.3); a working connection
// beside it is answered after.
func TestHTTP3QPACKEncoderInsert(t *testing.T) {
	_, addr := startH3(t, Config{Mode: Inline})
	work := dialH3Raw(t, addr)
	c := dialH3Raw(t, addr)
	id, err := c.qc.OpenStream(true)
	if err != nil {
		t.Fatal(err)
	}
	// Insert with Literal Name (section 4.3.3): "x-a: b".
	c.qc.Write(id, append(http3.AppendStreamType(nil, http3.StreamQPACKEncoder), 0x40|3, 'x', '-', 'a', 1, 'b'))
	if ce := c.closedBy(); !ce.Application || ce.Code != uint64(http3.ErrCodeQPACKEncoderStream) {
		t.Errorf("the server closed with %v; want QPACK_ENCODER_STREAM_ERROR", ce)
	}
	h3Answered(t, work, "after the attack")
}
