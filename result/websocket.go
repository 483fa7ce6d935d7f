package result

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// ProtoWebSocket is Result.Protocol for a WebSocket run (gust load ws://
// or wss://): Requests, RPS and Latency then count messages and their
// round trips, and Result.WebSocket holds the rest.
const ProtoWebSocket = "websocket"

// WebSocket is what a WebSocket run measured beyond what every run does:
// its opening handshakes, the messages and bytes each way, the server's
// close frames, pings and pongs, and the connections still open at the
// end. Result.WebSocket is nil for an HTTP run, so that nothing of it
// shows in that run's reports.
//
// Upgrades and UpgradeFailed count from the start of the run, ramp
// included, as Result.Connects does; every other counter counts while
// measuring. A refused upgrade is also one ErrUpgrade of Result.Errors
// when it happened while measuring.
type WebSocket struct {
	// Inflight is how many messages each connection kept in flight at
	// most (gust load --ws-inflight); 0 when the run held its connections.
	Inflight int
	// Size is each message's payload in bytes.
	Size int
	// Text is true when messages went as text frames, false for binary.
	Text bool
	// DeflateOffered is true when the handshakes offered permessage-deflate.
	DeflateOffered bool
	// Hold is true when connections only upgraded and held, sending a
	// ping every Ping and no messages (gust load --ws-hold).
	Hold bool
	// Ping is the interval between a held connection's pings.
	Ping time.Duration
	// HTTP2 is true when each WebSocket was an HTTP/2 extended CONNECT
	// stream (RFC 8441, gust load --http2): its upgrade a 200, not a 101.
	HTTP2 bool

	// Upgrades counts opening handshakes answered by a valid 101 (a 200
	// over HTTP/2).
	Upgrades int64
	// UpgradeFailed counts opening handshakes that failed: a status other
	// than 101, a 101 whose headers do not upgrade to WebSocket (counted
	// under 101 in UpgradeStatus), an answer that is not HTTP, or none
	// within the timeout (under 0).
	UpgradeFailed int64
	// UpgradeStatus counts the failed upgrades by the status they got.
	UpgradeStatus map[int]int64
	// Deflate counts the upgrades that agreed on permessage-deflate.
	Deflate int64
	// Upgrade holds, in microseconds, the time from writing the opening
	// handshake to its 101.
	Upgrade *hdrhistogram.Histogram

	// MessagesSent and MessagesReceived count whole messages each way;
	// BytesSent and BytesReceived their payloads (before compression).
	MessagesSent, MessagesReceived int64
	BytesSent, BytesReceived       int64
	// Closes counts the close frames the server sent, by close code (1005
	// for a close without one).
	Closes map[int]int64
	// PingsSent counts pings sent (held connections), PongsReceived the
	// pongs that came back, PingsReceived the server's pings (each
	// answered with a pong).
	PingsSent, PongsReceived, PingsReceived int64
	// Held counts the connections upgraded and still open at the end.
	Held int64
}

// NewWebSocket returns an empty WebSocket record with its maps and
// histogram made.
func NewWebSocket() *WebSocket {
	return &WebSocket{UpgradeStatus: make(map[int]int64), Closes: make(map[int]int64), Upgrade: NewHistogram()}
}

// Add adds r's counts and upgrade histogram to w, whose maps and histogram
// must be made (NewWebSocket). The settings (Inflight, Size, ...) are w's.
func (w *WebSocket) Add(r *WebSocket) {
	w.Upgrades += r.Upgrades
	w.UpgradeFailed += r.UpgradeFailed
	w.Deflate += r.Deflate
	w.MessagesSent += r.MessagesSent
	w.MessagesReceived += r.MessagesReceived
	w.BytesSent += r.BytesSent
	w.BytesReceived += r.BytesReceived
	w.PingsSent += r.PingsSent
	w.PongsReceived += r.PongsReceived
	w.PingsReceived += r.PingsReceived
	w.Held += r.Held
	for code, n := range r.UpgradeStatus {
		w.UpgradeStatus[code] += n
	}
	for code, n := range r.Closes {
		w.Closes[code] += n
	}
	if r.Upgrade != nil {
		w.Upgrade.Merge(r.Upgrade)
	}
}

// settings returns w's run settings alone, with empty counters.
func (w *WebSocket) settings() *WebSocket {
	out := NewWebSocket()
	out.Inflight, out.Size, out.Text, out.DeflateOffered, out.Hold, out.Ping, out.HTTP2 =
		w.Inflight, w.Size, w.Text, w.DeflateOffered, w.Hold, w.Ping, w.HTTP2
	return out
}

// addWebSocket adds r's WebSocket record to out's, making out's on first
// use with r's settings, so that it stays nil unless a part spoke
// WebSocket.
func (out *Result) addWebSocket(r *Result) {
	if r.WebSocket == nil {
		return
	}
	if out.WebSocket == nil {
		out.WebSocket = r.WebSocket.settings()
		if out.Latency != nil {
			out.WebSocket.Upgrade = newLike(out.Latency)
		}
	}
	out.WebSocket.Add(r.WebSocket)
}
