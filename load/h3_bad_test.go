package load

import (
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// QUIC-level bad input from a server, in a real run of 4 connections of
// 8 streams. What cannot be authenticated (random bytes, a truncated
// packet, a datagram past the client's max_udp_payload_size) is dropped
// as RFC 9000 section 12.2 says, and nothing ends; what breaks the
// protocol ends that connection with the error RFC 9000 names, in a
// CONNECTION_CLOSE the server receives, counted by name in the QUIC
// section, while the run goes on over new connections.
func TestHTTP3BadQUICInput(t *testing.T) {
	const n = 400
	dropped := func(t *testing.T, res *result.Result, srv *h3TestServer) {
		if res.Status[200] != n || res.ErrorCount() != 0 || len(res.QUIC.Closes) != 0 || res.QUIC.Handshakes() != 4 {
			t.Errorf("status %v, errors %v, closes %v, handshakes %d; want all %d answered on the first 4 connections",
				res.Status, res.Errors, res.QUIC.Closes, res.QUIC.Handshakes(), n)
		}
		if junk := srv.junkSent(); junk == 0 || res.QUIC.DatagramsReceived < junk {
			t.Errorf("%d bad datagrams sent, %d datagrams received: the bad ones must have reached the client", junk, res.QUIC.DatagramsReceived)
		}
	}
	closedWith := func(code string) func(t *testing.T, res *result.Result, srv *h3TestServer) {
		return func(t *testing.T, res *result.Result, srv *h3TestServer) {
			local := res.QUIC.Closes["local: "+code]
			if local == 0 || local != int64(len(res.QUIC.Closes)) && len(res.QUIC.Closes) != 1 {
				t.Errorf("closes %v; want connections closed with %s, and no other close", res.QUIC.Closes, code)
			}
			if res.Status[200] < n/2 || res.Status[200]+res.Errors[result.ErrProtocol] != n || res.ErrorCount() != res.Errors[result.ErrProtocol] {
				t.Errorf("status %v, errors %v; want the %d split between answers and the protocol errors of the requests in flight on the closed connections",
					res.Status, res.Errors, n)
			}
			// Each close ends a connection of its own; the run's last
			// ones need no new connection.
			if res.QUIC.Handshakes() < local || res.QUIC.Handshakes() <= 4 {
				t.Errorf("%d handshakes after %d closes: the run must go on over new connections", res.QUIC.Handshakes(), local)
			}
			waitFor(t, "the server to see its connections closed with "+code, func() bool { return srv.peerClosed("peer: "+code) >= int(local) })
		}
	}
	for _, tt := range []struct {
		name  string
		bad   h3Bad
		check func(t *testing.T, res *result.Result, srv *h3TestServer)
	}{
		{"random datagrams are dropped", badGarbage, dropped},
		{"truncated packets are dropped, and what they held sent again", badTruncated, func(t *testing.T, res *result.Result, srv *h3TestServer) {
			dropped(t, res, srv)
			waitFor(t, "the server to count the truncated packets lost", func() bool { return srv.packetsLost() > 0 })
		}},
		{"datagrams past max_udp_payload_size are dropped", badOversized, dropped},
		{"stream data past the window is FLOW_CONTROL_ERROR", badFlowControl, closedWith("FLOW_CONTROL_ERROR")},
		{"an unknown frame type is FRAME_ENCODING_ERROR", badFrameType, closedWith("FRAME_ENCODING_ERROR")},
		{"CONNECTION_CLOSE in the handshake is a connect error", badHandshakeClose, func(t *testing.T, res *result.Result, srv *h3TestServer) {
			if res.QUIC.Closes["peer: CONNECTION_REFUSED"] != 2 || len(res.QUIC.Closes) != 1 {
				t.Errorf("closes %v; want the 2 refused handshakes counted as peer: CONNECTION_REFUSED", res.QUIC.Closes)
			}
			if res.Status[200]+res.Errors[result.ErrConnect] != n || res.Errors[result.ErrConnect] > 2 || res.ErrorCount() != res.Errors[result.ErrConnect] {
				t.Errorf("status %v, errors %v; want every request answered but those the 2 refused connects cost", res.Status, res.Errors)
			}
			if res.QUIC.Handshakes() != 4 {
				t.Errorf("%d handshakes; want 4, the refused connections made again", res.QUIC.Handshakes())
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := startH3TestServer(t, h3TestOptions{bad: tt.bad})
			res := run(t, h3Config(url, 4, 8, n))
			t.Logf("status %v, errors %v, closes %v, handshakes %d", res.Status, res.Errors, res.QUIC.Closes, res.QUIC.Handshakes())
			tt.check(t, res, srv)
		})
	}
}

// waitFor waits up to 5 s for cond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polls cond, with a deadline
	}
}
