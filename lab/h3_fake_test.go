package lab

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
	"time"

	"github.com/gust-http/gust/internal/http3"
	"github.com/gust-http/gust/internal/quic"
	"github.com/gust-http/gust/internal/transport"
)

// fakeH3Server serves HTTP/3 on UDP addr, answering "Hello, Go!" to
// every request, when mode is h3, and exits with status 4 for any other
// mode. It stands in for the quic-go peer, which the lab tests do not
// build: internal/quic's server role on one socket, one goroutine, the
// peer's address naming its connection (gust load opens a socket per
// connection).
func fakeH3Server(addr, mode string) {
	if mode != ModeH3 {
		os.Stderr.WriteString("fake-h3-server: mode " + mode)
		os.Exit(4)
	}
	err := serveFakeH3(addr)
	os.Stderr.WriteString(err.Error())
	os.Exit(1)
}

// fakeH3Conn is one connection of the fake HTTP/3 server.
type fakeH3Conn struct {
	qc   *quic.Conn
	peer *net.UDPAddr
	reqs map[uint64][]byte // request streams' bytes until their FIN
}

func serveFakeH3(addr string) error {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return err
	}
	udp, err := net.ListenUDP("udp", ua)
	if err != nil {
		return err
	}
	cert, _, err := transport.SelfSigned([]string{"localhost"}, time.Hour)
	if err != nil {
		return err
	}
	cfg := &quic.Config{
		TLSConfig:      &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h3"}, MinVersion: tls.VersionTLS13},
		MaxIdleTimeout: 30 * time.Second,
	}
	conns := map[string]*fakeH3Conn{}
	buf := make([]byte, 65536)
	out := make([]byte, 0, 2048)
	for {
		// A short read deadline runs the connections' timers between datagrams.
		udp.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
		n, peer, err := udp.ReadFromUDP(buf)
		now := time.Now()
		var ne net.Error
		switch {
		case err == nil:
			c := conns[peer.String()]
			if c == nil {
				h, err := quic.ParseLongHeader(buf[:n])
				if err != nil {
					continue
				}
				qc, err := quic.NewServerConn(cfg, h.DstConnID, nil, now)
				if err != nil {
					continue
				}
				c = &fakeH3Conn{qc: qc, peer: peer, reqs: map[uint64][]byte{}}
				conns[peer.String()] = c
			}
			c.qc.Receive(buf[:n], now)
		case !errors.As(err, &ne) || !ne.Timeout():
			return err
		}
		for key, c := range conns {
			if t := c.qc.NextTimeout(); !t.IsZero() && !now.Before(t) {
				c.qc.OnTimeout(now)
			}
			c.events()
			for {
				d, ok := c.qc.AppendDatagram(out[:0], now)
				if !ok {
					break
				}
				udp.WriteToUDP(d, c.peer)
			}
			if c.qc.Closed() {
				delete(conns, key)
			}
		}
	}
}

// events opens the control stream once the handshake is done and
// answers each request stream at its FIN; the client's one-way streams
// are read and ignored.
func (c *fakeH3Conn) events() {
	var rbuf [16 << 10]byte
	for ev := c.qc.NextEvent(); ev.Kind != quic.EventNone; ev = c.qc.NextEvent() {
		switch ev.Kind {
		case quic.EventHandshakeDone:
			if id, err := c.qc.OpenStream(true); err == nil {
				c.qc.Write(id, http3.AppendControlStreamStart(nil, http3.DefaultSettings()))
			}
		case quic.EventStreamReadable:
			for {
				n, fin, err := c.qc.Read(ev.StreamID, rbuf[:])
				if err != nil {
					break
				}
				if !quic.IsUniStream(ev.StreamID) {
					c.reqs[ev.StreamID] = append(c.reqs[ev.StreamID], rbuf[:n]...)
				}
				if fin && !quic.IsUniStream(ev.StreamID) {
					delete(c.reqs, ev.StreamID)
					c.answer(ev.StreamID)
					break
				}
				if n == 0 {
					break
				}
			}
		}
	}
}

// answer sends "Hello, Go!" on request stream id and closes it.
func (c *fakeH3Conn) answer(id uint64) {
	sec := http3.AppendSectionPrefix(nil)
	sec = http3.AppendField(sec, ":status", "200")
	sec = http3.AppendField(sec, "content-length", "10")
	b := http3.AppendHeaders(nil, sec)
	b = http3.AppendData(b, []byte("Hello, Go!"))
	c.qc.Write(id, b)
	c.qc.CloseWrite(id)
}
