package load

import "testing"

// TestUseProtocolFollowsALPN is the hook the TLS transport calls with the
// protocol its handshake negotiated: "h2" gives the connection an HTTP/2
// session, anything else HTTP/1.1, and a connection that switches back
// and forth reuses both sessions.
func TestUseProtocolFollowsALPN(t *testing.T) {
	l, _ := feedLoop(t)
	l.e.cfg.Streams = 10
	c := newConn(newH1Session(1, false))
	h1 := c.ses
	steps := []struct {
		alpn   string
		wantH2 bool
	}{
		{"", false},
		{"http/1.1", false},
		{"h2", true},
		{"h2", true},
		{"http/1.1", false},
		{"h2", true},
	}
	var h2 session
	for _, st := range steps {
		l.useProtocol(c, st.alpn)
		s, isH2 := c.ses.(*h2session)
		if isH2 != st.wantH2 {
			t.Fatalf("ALPN %q: HTTP/2 session %v, want %v", st.alpn, isH2, st.wantH2)
		}
		switch {
		case isH2 && h2 == nil:
			h2 = c.ses
			if s.cfg.MaxStreams != 10 {
				t.Errorf("HTTP/2 session allows %d streams, want Config.Streams 10", s.cfg.MaxStreams)
			}
		case isH2 && c.ses != h2, !isH2 && c.ses != h1:
			t.Errorf("ALPN %q: a new session, want the connection's own reused", st.alpn)
		}
	}
}

// TestALPNOffer: --http2 offers h2 alone, a plain run http/1.1.
func TestALPNOffer(t *testing.T) {
	for _, tt := range []struct {
		http2 bool
		want  string
	}{{true, "h2"}, {false, "http/1.1"}} {
		e := &engine{cfg: Config{HTTP2: tt.http2}}
		if got := e.alpnOffer(); len(got) != 1 || got[0] != tt.want {
			t.Errorf("HTTP2 %v: offer %q, want [%s]", tt.http2, got, tt.want)
		}
	}
}
