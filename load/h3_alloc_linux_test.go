package load

import (
	"crypto/tls"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gust-http/gust/internal/datagram"
	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/quic"
	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/result"
)

// h3Pair is an HTTP/3 session of the generator on one end of a datagram
// socketpair and a QUIC server on the other, driven in turn on one
// goroutine: what a request costs the generator, its engine and its
// datagram batches, with no loop or scheduler around them. The server
// answers from buffers made once, so that the pair allocates only what
// the generator does.
type h3Pair struct {
	tb    testing.TB
	ses   *h3session
	srv   *quic.Conn
	sfd   int
	sink  countSink
	req   request
	buf   []byte
	rbuf  []byte
	out   []byte
	reply []byte
}

// countSink counts completed responses; anything else is a failure.
type countSink struct {
	tb   testing.TB
	done int
}

func (k *countSink) complete(x exchange, status int) {
	if status != 200 {
		k.tb.Errorf("status %d", status)
	}
	k.done++
}
func (k *countSink) abandon(x exchange, kind result.ErrorKind)    { k.tb.Errorf("abandoned: %v", kind) }
func (k *countSink) reply(p []byte)                               {}
func (k *countSink) reset(x exchange, code uint32)                { k.tb.Errorf("reset %#x", code) }
func (k *countSink) retry(x exchange)                             { k.tb.Error("retried") }
func (k *countSink) goAway(code uint32)                           { k.tb.Error("GOAWAY") }
func (k *countSink) streamHead(x exchange, sse bool)              {}
func (k *countSink) streamed(x exchange, n int, last int64) int64 { return 0 }
func (k *countSink) streamEnd(x exchange, events int64)           {}
func (k *countSink) grpcEnd(x exchange, code int, msgs int64)     {}

func newH3Pair(tb testing.TB, offload datagram.Features) *h3Pair {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	cert, _, err := transport.SelfSigned([]string{"localhost"}, time.Hour)
	if err != nil {
		tb.Fatal(err)
	}
	qcfg := &quic.Config{TLSConfig: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h3"}}, MaxIdleTimeout: time.Minute}
	p := &h3Pair{tb: tb, sfd: fds[1], buf: make([]byte, 65536), rbuf: make([]byte, 4096), out: make([]byte, 0, 2048)}
	p.sink.tb = tb
	p.ses = newH3Session(qcfg, 8, newQUICBatches(offload), nil)
	p.ses.link.reset(fds[0])
	p.ses.begin()
	p.req = newTargetRequest(&http1.Request{Method: "GET", Target: "/", Host: "localhost"})
	sec := http3.AppendSectionPrefix(nil)
	sec = http3.AppendField(sec, ":status", "200")
	sec = http3.AppendField(sec, "content-length", "5")
	p.reply = http3.AppendData(http3.AppendHeaders(nil, sec), []byte("hello"))

	p.ses.link.Write(nil)
	n, err := unix.Read(p.sfd, p.buf)
	if err != nil {
		tb.Fatal(err)
	}
	h, err := quic.ParseLongHeader(p.buf[:n])
	if err != nil {
		tb.Fatal(err)
	}
	scfg := &quic.Config{TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h3"}}, MaxIdleTimeout: time.Minute}
	if p.srv, err = quic.NewServerConn(scfg, h.DstConnID, nil, time.Now()); err != nil {
		tb.Fatal(err)
	}
	p.srv.Receive(p.buf[:n], time.Now())
	for i := 0; p.ses.room() == 0; i++ {
		if i > 100 {
			tb.Fatal("no handshake after 100 exchanges of datagrams")
		}
		p.pump()
	}
	return p
}

// pump moves datagrams both ways once: the server reads and answers,
// the generator reads and acknowledges.
func (p *h3Pair) pump() {
	now := time.Now()
	for {
		n, err := unix.Read(p.sfd, p.buf)
		if err != nil {
			break
		}
		p.srv.Receive(p.buf[:n], now)
	}
	if t := p.srv.NextTimeout(); !t.IsZero() && !now.Before(t) {
		p.srv.OnTimeout(now)
	}
	p.serve()
	for {
		d, ok := p.srv.AppendDatagram(p.out[:0], now)
		if !ok {
			break
		}
		unix.Write(p.sfd, d)
	}
	for {
		n, err := p.ses.link.Read(p.buf)
		if err != nil {
			break
		}
		if _, ok := p.ses.feed(p.buf[:n], &p.sink); !ok {
			p.tb.Fatalf("the session failed: %v", p.ses.closedBy)
		}
	}
	if t := p.ses.link.qc.NextTimeout(); !t.IsZero() && !now.Before(t) {
		p.ses.timeout(now, &p.sink)
	}
	p.ses.link.Write(nil)
}

// serve answers every request stream that is complete.
func (p *h3Pair) serve() {
	for ev := p.srv.NextEvent(); ev.Kind != quic.EventNone; ev = p.srv.NextEvent() {
		switch ev.Kind {
		case quic.EventHandshakeDone:
			id, _ := p.srv.OpenStream(true)
			p.srv.Write(id, http3.AppendControlStreamStart(nil, http3.DefaultSettings()))
		case quic.EventStreamReadable:
			for {
				n, fin, err := p.srv.Read(ev.StreamID, p.rbuf)
				if err != nil || (n == 0 && !fin) {
					break
				}
				if fin && !quic.IsUniStream(ev.StreamID) {
					p.srv.Write(ev.StreamID, p.reply)
					p.srv.CloseWrite(ev.StreamID)
					break
				}
			}
		}
	}
}

// request sends one request and pumps until its answer is complete.
func (p *h3Pair) request() {
	want := p.sink.done + 1
	p.ses.send(nil, &p.req, exchange{})
	p.ses.link.Write(nil)
	for i := 0; p.sink.done < want; i++ {
		if i > 100 {
			p.tb.Fatal("no answer after 100 exchanges of datagrams")
		}
		p.pump()
	}
}

// A keep-alive HTTP/3 request, its datagrams and its answer allocate
// nothing in the generator once the connection is warm.
func TestHTTP3RequestAllocatesNothing(t *testing.T) {
	for _, f := range []datagram.Features{{}, {GSO: true, GRO: true}} {
		p := newH3Pair(t, f)
		for range 500 {
			p.request()
		}
		if a := testing.AllocsPerRun(1000, p.request); a != 0 {
			t.Errorf("offloads %+v: %v allocations per HTTP/3 request, want 0", f, a)
		}
	}
}

// BenchmarkHTTP3Request is one request and answer over the pair:
// generator and server together, no loop.
func BenchmarkHTTP3Request(b *testing.B) {
	p := newH3Pair(b, datagram.Features{})
	for range 500 {
		p.request()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p.request()
	}
}
