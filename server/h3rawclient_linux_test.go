package server

import (
	"crypto/tls"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/quic"
)

// h3RawClient is a QUIC connection driven by hand from a test, to send
// the server what a well-behaved client never would.
type h3RawClient struct {
	t   *testing.T
	qc  *quic.Conn
	udp *net.UDPConn
	buf []byte
}

// dialH3Raw connects to addr and completes the handshake, with the
// client's control stream open and the server's received.
func dialH3Raw(t *testing.T, addr *net.UDPAddr) *h3RawClient {
	t.Helper()
	udp, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { udp.Close() })
	qc := newH3ClientConn(t)
	t.Cleanup(qc.Abandon) // crypto/tls's handshake goroutine ends with it
	c := &h3RawClient{t: t, qc: qc, udp: udp, buf: make([]byte, 65536)}
	c.until("the handshake", func() bool { return qc.HandshakeComplete() })
	id, err := qc.OpenStream(true)
	if err != nil {
		t.Fatal(err)
	}
	qc.Write(id, http3.AppendControlStreamStart(nil, http3.DefaultSettings()))
	// The server's control stream (its first unidirectional stream) says
	// it has the client's Finished, and so the keys to open what sendRaw
	// sends, which is never sent again.
	c.until("the server's control stream", func() bool { return qc.Readable(3) > 0 })
	return c
}

// newH3ClientConn returns a client connection for the server's
// self-signed certificate, nothing sent yet.
func newH3ClientConn(t *testing.T) *quic.Conn {
	t.Helper()
	qc, err := quic.NewClientConn(&quic.Config{TLSConfig: &tls.Config{ServerName: "localhost", InsecureSkipVerify: true,
		NextProtos: []string{"h3"}, MinVersion: tls.VersionTLS13}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return qc
}

// until exchanges datagrams until cond holds, for at most 5 s.
func (c *h3RawClient) until(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		now := time.Now()
		for {
			d, ok := c.qc.AppendDatagram(nil, now)
			if !ok {
				break
			}
			c.udp.Write(d)
		}
		if cond() {
			return
		}
		if now.After(deadline) {
			c.t.Fatalf("%s: not within 5 s (connection error %v)", what, c.qc.Err())
		}
		c.udp.SetReadDeadline(now.Add(5 * time.Millisecond))
		if n, err := c.udp.Read(c.buf); err == nil {
			c.qc.Receive(c.buf[:n], time.Now())
		}
		if t := c.qc.NextTimeout(); !t.IsZero() && !time.Now().Before(t) {
			c.qc.OnTimeout(time.Now())
		}
	}
}

// request sends b on a new request stream, ended, and returns what comes
// back: the bytes of the response, or the code the server reset it with.
func (c *h3RawClient) request(b []byte) (resp []byte, resetCode uint64) {
	c.t.Helper()
	id, err := c.qc.OpenStream(false)
	if err != nil {
		c.t.Fatal(err)
	}
	c.qc.Write(id, b)
	c.qc.CloseWrite(id)
	done := false
	rbuf := make([]byte, 4096)
	c.until("the answer", func() bool {
		for !done {
			n, fin, err := c.qc.Read(id, rbuf)
			var se *quic.StreamError
			if errors.As(err, &se) {
				resetCode, done = se.Code, true
				break
			}
			resp = append(resp, rbuf[:n]...)
			if fin {
				done = true
			}
			if n == 0 {
				break
			}
		}
		return done || c.qc.Closed()
	})
	return resp, resetCode
}

// sendRaw puts frames on the wire in a 1-RTT packet of their own, past
// the connection's own checks.
func (c *h3RawClient) sendRaw(frames []byte) {
	c.t.Helper()
	d, err := c.qc.SealRawFrames(frames, time.Now())
	if err != nil {
		c.t.Fatal(err)
	}
	c.udp.Write(d)
}

// closedBy waits until the server closes the connection and returns the
// close it sent.
func (c *h3RawClient) closedBy() *quic.CloseError {
	c.t.Helper()
	c.until("the server's close", func() bool { return c.qc.Err() != nil })
	var ce *quic.CloseError
	if !errors.As(c.qc.Err(), &ce) || !ce.Remote {
		c.t.Fatalf("connection ended with %v; want a CONNECTION_CLOSE from the server", c.qc.Err())
	}
	return ce
}

// flush sends what the connection has to send now, and nothing after
// unless asked: a client that stops acknowledging.
func (c *h3RawClient) flush() (sent int) {
	for {
		d, ok := c.qc.AppendDatagram(nil, time.Now())
		if !ok {
			return sent
		}
		c.udp.Write(d)
		sent += len(d)
	}
}
