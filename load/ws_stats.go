package load

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/internal/websocket"
	"github.com/gust-http/gust/result"
)

// wsStats is one loop's WebSocket counters, written by its sessions (each
// holds a pointer to its loop's) and by nothing else, so nothing is atomic.
// The sessions count whether or not the loop is measuring: stats.reset
// clears the measured part when measurement begins, and keeps the upgrades,
// which count from the start as connects do.
type wsStats struct {
	wsRamp
	wsMeasured
	// events is lent to the engine of every session the loop feeds, so
	// that no held connection keeps a slice of events (websocket.Conn.Lend).
	events []websocket.Event
}

// wsRamp is what counts from the start of the run, ramp included.
type wsRamp struct {
	upgrades, failed, deflate int64
	failedStatus              map[int]int64 // made on the first failure
	upgrade                   *hdrhistogram.Histogram
}

// wsMeasured is what counts while measuring.
type wsMeasured struct {
	msgsOut, msgsIn, bytesOut, bytesIn int64
	pings, pongs, pingsIn              int64
	closes                             map[int]int64 // made on the first close
}

// upgraded records an upgrade answered by a valid 101 after us.
func (s *wsStats) upgraded(us int64, deflate bool) {
	s.upgrades++
	s.upgrade.RecordValue(us)
	if deflate {
		s.deflate++
	}
}

// refused records a failed upgrade with the status it got (0: none).
func (s *wsStats) refused(status int) {
	s.failed++
	if s.failedStatus == nil {
		s.failedStatus = make(map[int]int64)
	}
	s.failedStatus[status]++
}

// closed counts the server's close frame with its code.
func (s *wsStats) closed(code int) {
	if s.closes == nil {
		s.closes = make(map[int]int64)
	}
	s.closes[code]++
}

// addTo adds s, and held, the loop's connections upgraded and open at the
// end, to r's WebSocket record.
func (s *wsStats) addTo(r *result.WebSocket, held int64) {
	part := result.WebSocket{
		Upgrades:         s.upgrades,
		UpgradeFailed:    s.failed,
		UpgradeStatus:    s.failedStatus,
		Deflate:          s.deflate,
		Upgrade:          s.upgrade,
		MessagesSent:     s.msgsOut,
		MessagesReceived: s.msgsIn,
		BytesSent:        s.bytesOut,
		BytesReceived:    s.bytesIn,
		Closes:           s.closes,
		PingsSent:        s.pings,
		PongsReceived:    s.pongs,
		PingsReceived:    s.pingsIn,
		Held:             held,
	}
	r.Add(&part)
}

// newWebSocketResult is the Result.WebSocket of cfg's run, with its
// settings and no counts yet.
func newWebSocketResult(cfg *Config) *result.WebSocket {
	w := result.NewWebSocket()
	ws := cfg.WebSocket
	w.Size, w.Text, w.DeflateOffered, w.Hold, w.Ping = ws.Size, ws.Text, ws.Deflate, ws.Hold, ws.Ping
	w.HTTP2 = cfg.HTTP2
	if len(cfg.Body) > 0 {
		w.Size = len(cfg.Body)
	}
	if ws.Hold {
		w.Size = 0
	} else {
		w.Inflight = ws.Inflight
	}
	return w
}
