package server

import (
	"bytes"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/quic"
)

// Two servers sharing Config.HTTP3Secret: a datagram of one's client that
// reaches the other (as after an upgrade, in one SO_REUSEPORT group) is
// answered with a stateless reset that client accepts, so that it
// reconnects at once; servers with secrets of their own make resets the
// client ignores.
func TestHTTP3SecretMakesResetsGoodAcrossServers(t *testing.T) {
	secret := bytes.Repeat([]byte{7}, 32)
	for _, tc := range []struct {
		name       string
		a, b       []byte
		wantAccept bool
	}{
		{"one secret", secret, secret, true},
		{"secrets of their own", nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, addrA := startH3(t, Config{Mode: Inline, HTTP3Secret: tc.a})
			_, addrB := startH3(t, Config{Mode: Inline, HTTP3Secret: tc.b})
			c := dialH3Raw(t, addrA)
			id, err := c.qc.OpenStream(false)
			if err != nil {
				t.Fatal(err)
			}
			c.qc.Write(id, []byte("a request the other server never heard of"))
			d, ok := c.qc.AppendDatagram(nil, time.Now())
			if !ok {
				t.Fatal("no datagram to send")
			}
			d = append(d, make([]byte, 100)...) // room for a reset that must be smaller than what came
			other, err := net.DialUDP("udp", nil, addrB)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			other.Write(d)
			other.SetReadDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 2048)
			n, err := other.Read(buf)
			if err != nil {
				t.Fatalf("no answer from the other server: %v", err)
			}
			c.qc.Receive(buf[:n], time.Now())
			accepted := errors.Is(c.qc.Err(), quic.ErrStatelessReset)
			if accepted != tc.wantAccept {
				t.Errorf("the client accepted the other server's reset: %v (error %v); want %v", accepted, c.qc.Err(), tc.wantAccept)
			}
		})
	}
}
