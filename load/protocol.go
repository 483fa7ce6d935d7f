package load

import "github.com/gust-http/gust/result"

// A protocol is what turns a connection's requests into bytes and the bytes
// that come back into completed responses. The loop owns sockets, timers,
// schedules and statistics, and runs each round trip (roundtrip.go); a
// session owns one connection's protocol state: the requests in flight,
// the parser, and whatever its wire format needs of its own. Two sessions
// implement it, chosen per connection by Config or by ALPN (h2choose.go),
// a third the URL's scheme picks, and a fourth Config.HTTP3 picks
// (HTTP/3 over QUIC, h3session.go, its socket UDP and its transport the
// QUIC engine: h3loop.go):
//   - HTTP/1.1 (http1.go) writes each request's head as HTTP/1.1 (the
//     run's one request serialized once), keeps up to Pipeline in flight,
//     and completes responses in order; closing is Connection: close.
//   - HTTP/2 (h2session.go) writes the preface in start, HPACK-encodes
//     each head on a new stream (room: Streams, bounded by the server's
//     SETTINGS_MAX_CONCURRENT_STREAMS), and completes exchanges in any
//     order by the stream's tag. Through the sink (sink.go) it also
//     writes connection frames back (reply), fails one stream alone
//     (abandon, reset), hands back what a GOAWAY left unprocessed (retry)
//     and counts the GOAWAY (goAway); closing follows GOAWAY, expire
//     cancels streams one by one, and a connection error fails the whole
//     connection (feed's error kind).
//   - WebSocket (ws.go) writes the opening handshake in start, reads the
//     101 (ws_upgrade.go), then sends the run's message up to Inflight
//     in flight and completes them in order as they come back; closing
//     follows the server's close frame.
//
// Nothing here allocates per request: sessions keep their exchanges in
// arrays sized once, and the loop passes its delivery (sink.go) as the
// sink.

// exchange is one request in flight: what the loop needs back when its
// response completes or it fails.
type exchange struct {
	sent int64  // when it was sent, or was meant to be in the open model
	meta uint32 // its endpoint and HEAD flag (see metaHead)
}

// session is one connection's protocol state. It lives as long as its
// conn; reset forgets the socket it was on.
type session interface {
	// start appends to out what a new session writes before its first
	// request (nothing for HTTP/1.1) and returns out.
	start(out []byte) []byte
	// room reports how many more requests may be sent now.
	room() int
	// inflight reports how many requests wait for their response.
	inflight() int
	// at returns the i-th exchange in flight, oldest first, for i below
	// inflight(); the loop reads it only to fail them all.
	at(i int) exchange
	// send appends req to out in the protocol's encoding, records x in
	// flight, and returns out. req is valid only during the call.
	send(out []byte, req *request, x exchange) []byte
	// feed parses data just read. For every response it completes it
	// calls s.complete. It returns false, with the kind to count, when
	// the connection must be failed.
	feed(data []byte, s sink) (result.ErrorKind, bool)
	// eof tells the session the peer closed the stream; a response that
	// ends with the connection completes through s.
	eof(s sink)
	// closing reports that the session ends once nothing is in flight:
	// HTTP/1.1's Connection: close, HTTP/2's GOAWAY.
	closing() bool
	// expire fails, through s, the exchanges sent before cutoff that a
	// multiplexed protocol can give up on one by one (HTTP/2 resets their
	// streams); HTTP/1.1's wait in order, so it leaves them to the loop,
	// which fails the connection.
	expire(cutoff int64, s sink)
	// multiplexed reports that responses come back in any order on
	// streams (HTTP/2), so that reading on before writing batches more.
	multiplexed() bool
	// stalled reports that a request waits for the peer to let it be sent
	// (an HTTP/2 flow-control window), so that a Timeout is counted as a
	// stall rather than a slow response.
	stalled() bool
	// reset forgets everything tied to the socket.
	reset()
}

// newSession returns a connection's session in the run's protocol:
// WebSocket for ws:// and wss://, HTTP/2 with Config.HTTP2, HTTP/1.1
// otherwise (AutoProtocol included).
// A connection whose protocol is negotiated (TLS's ALPN) swaps it with
// loop.useProtocol.
func (e *engine) newSession() session {
	if e.target.ws != nil {
		return newWSSession(e.target.ws)
	}
	if e.cfg.HTTP2 {
		return newH2SessionFor(&e.cfg, e.cfg.Streams, e.sessionScheme())
	}
	return newH1SessionFor(&e.cfg)
}
