package load

import (
	"maps"
	"slices"
	"testing"
)

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

// TestALPNOffer: --http2 offers h2 alone, --proto auto h2 before
// http/1.1, a plain run http/1.1.
func TestALPNOffer(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"--http2", Config{HTTP2: true}, []string{"h2"}},
		{"--proto auto", Config{AutoProtocol: true}, []string{"h2", "http/1.1"}},
		{"HTTP/1.1", Config{}, []string{"http/1.1"}},
	} {
		e := &engine{cfg: tt.cfg}
		if got := e.alpnOffer(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: offer %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestProtocolsSpoken: the handshakes' ALPN results counted as the
// protocols their connections spoke, as useProtocol chose them: no ALPN
// answer is HTTP/1.1 for an auto run but HTTP/2 for --http2.
func TestProtocolsSpoken(t *testing.T) {
	alpn := map[string]int64{"h2": 5, "http/1.1": 3, "none": 2}
	for _, tt := range []struct {
		name string
		cfg  Config
		want map[string]int64
	}{
		{"--proto auto", Config{AutoProtocol: true}, map[string]int64{"h2": 5, "http/1.1": 5}},
		{"--http2", Config{HTTP2: true}, map[string]int64{"h2": 7, "http/1.1": 3}},
	} {
		e := &engine{cfg: tt.cfg}
		if got := e.protocolsSpoken(alpn); !maps.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	e := &engine{cfg: Config{AutoProtocol: true}}
	if got := e.protocolsSpoken(nil); !maps.Equal(got, map[string]int64{"h2": 0, "http/1.1": 0}) {
		t.Errorf("no handshakes: %v, want both protocols at 0", got)
	}
}
