package report

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// WebSocketStats is Summary.WebSocket, a WebSocket run's own facts
// (result.WebSocket); it is left out for an HTTP run, whose document is
// unchanged by it. Messages are also the run's requests: Summary.Requests,
// RPS and Latency count them and their round trips.
type WebSocketStats struct {
	// Inflight is the messages each connection kept in flight at most;
	// 0 for a run that held its connections.
	Inflight int `json:"inflight"`
	// Size is each message's payload in bytes.
	Size int `json:"size"`
	// Text is true for text messages, false for binary.
	Text bool `json:"text"`
	// DeflateOffered is true when the upgrades offered permessage-deflate.
	DeflateOffered bool `json:"deflate_offered"`
	// Hold is true when connections only upgraded and held, pinging.
	Hold bool `json:"hold"`
	// PingS is a held connection's ping interval in seconds; 0 otherwise.
	PingS float64 `json:"ping_s"`
	// HTTP2 is true when each WebSocket was an HTTP/2 extended CONNECT
	// stream (RFC 8441).
	HTTP2 bool `json:"http2,omitempty"`
	// Upgrades counts opening handshakes answered by a valid 101 (200 over HTTP/2), ramp
	// included.
	Upgrades int64 `json:"upgrades"`
	// UpgradesFailed counts the upgrades that failed, ramp included.
	UpgradesFailed int64 `json:"upgrades_failed"`
	// UpgradeStatus counts the failed upgrades by the status they got
	// ("101" for a 101 with wrong headers, "0" for no answer).
	UpgradeStatus map[string]int64 `json:"upgrade_status"`
	// Deflate counts the upgrades that agreed on permessage-deflate.
	Deflate int64 `json:"deflate"`
	// Upgrade describes the upgrade times, in microseconds from writing the
	// handshake to its 101; nil when none succeeded.
	Upgrade *Stats `json:"upgrade_us,omitempty"`
	// UpgradeHdr is the upgrade-time histogram, encoded as
	// Summary.LatencyHdr is, so that gust merge adds it exactly.
	UpgradeHdr string `json:"upgrade_hdr"`
	// MessagesSent and MessagesReceived count whole messages each way.
	MessagesSent     int64 `json:"messages_sent"`
	MessagesReceived int64 `json:"messages_received"`
	// BytesSent and BytesReceived count their payloads (uncompressed).
	BytesSent     int64 `json:"bytes_sent"`
	BytesReceived int64 `json:"bytes_received"`
	// Closes counts the server's close frames by close code.
	Closes map[string]int64 `json:"closes"`
	// PingsSent counts pings sent, PongsReceived the pongs back,
	// PingsReceived the server's pings (each answered).
	PingsSent     int64 `json:"pings_sent"`
	PongsReceived int64 `json:"pongs_received"`
	PingsReceived int64 `json:"pings_received"`
	// Held counts the connections upgraded and open at the end.
	Held int64 `json:"held"`
}

// newWebSocketStats describes w; nil gives nil.
func newWebSocketStats(w *result.WebSocket) *WebSocketStats {
	if w == nil {
		return nil
	}
	h := orEmpty(w.Upgrade)
	s := &WebSocketStats{
		Inflight: w.Inflight, Size: w.Size, Text: w.Text, DeflateOffered: w.DeflateOffered, Hold: w.Hold, HTTP2: w.HTTP2,
		PingS:            round(w.Ping.Seconds(), 3),
		Upgrades:         w.Upgrades,
		UpgradesFailed:   w.UpgradeFailed,
		UpgradeStatus:    byCode(w.UpgradeStatus),
		Deflate:          w.Deflate,
		UpgradeHdr:       encode(h),
		MessagesSent:     w.MessagesSent,
		MessagesReceived: w.MessagesReceived,
		BytesSent:        w.BytesSent,
		BytesReceived:    w.BytesReceived,
		Closes:           byCode(w.Closes),
		PingsSent:        w.PingsSent,
		PongsReceived:    w.PongsReceived,
		PingsReceived:    w.PingsReceived,
		Held:             w.Held,
	}
	if h.TotalCount() > 0 {
		st := newStats(h)
		s.Upgrade = &st
	}
	return s
}

// byCode writes a map by status or close code with string keys, as JSON
// has them.
func byCode(m map[int]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for code, n := range m {
		out[strconv.Itoa(code)] = n
	}
	return out
}

// fromCodes reads byCode's map back.
func fromCodes(key string, m map[string]int64) (map[int]int64, error) {
	out := make(map[int]int64, len(m))
	for k, n := range m {
		code, err := strconv.Atoi(k)
		if err != nil || code < 0 || code > 9999 {
			return nil, fmt.Errorf("websocket.%s has %q, which is not a code", key, k)
		}
		out[code] = n
	}
	return out, nil
}

// webSocketResult rebuilds result.WebSocket from s, its histogram with
// like's settings when empty; nil s gives nil.
func webSocketResult(s *WebSocketStats, like *hdrhistogram.Histogram) (*result.WebSocket, error) {
	if s == nil {
		return nil, nil
	}
	if s.UpgradeHdr == "" {
		return nil, errors.New("a WebSocket result without its upgrade histogram (websocket.upgrade_hdr)")
	}
	w := &result.WebSocket{
		Inflight: s.Inflight, Size: s.Size, Text: s.Text, DeflateOffered: s.DeflateOffered, Hold: s.Hold, HTTP2: s.HTTP2,
		Ping:             time.Duration(s.PingS * float64(time.Second)).Round(time.Millisecond),
		Upgrades:         s.Upgrades,
		UpgradeFailed:    s.UpgradesFailed,
		Deflate:          s.Deflate,
		MessagesSent:     s.MessagesSent,
		MessagesReceived: s.MessagesReceived,
		BytesSent:        s.BytesSent,
		BytesReceived:    s.BytesReceived,
		PingsSent:        s.PingsSent,
		PongsReceived:    s.PongsReceived,
		PingsReceived:    s.PingsReceived,
		Held:             s.Held,
	}
	var err error
	if w.UpgradeStatus, err = fromCodes("upgrade_status", s.UpgradeStatus); err != nil {
		return nil, err
	}
	if w.Closes, err = fromCodes("closes", s.Closes); err != nil {
		return nil, err
	}
	if w.Upgrade, err = decodeHistogram("websocket.upgrade_hdr", s.UpgradeHdr, like); err != nil {
		return nil, err
	}
	if n := w.Upgrade.TotalCount(); n != w.Upgrades {
		return nil, fmt.Errorf("websocket.upgrade_hdr holds %d values but upgrades is %d: the result was changed or cut", n, w.Upgrades)
	}
	return w, nil
}

// webSocketParts describe a WebSocket run for the Load line, e.g.
// "WebSocket", "64-byte binary messages, 1 in flight per connection", or
// "WebSocket, held (a ping every 30s)"; nil for an HTTP run.
func webSocketParts(r *result.Result) []string {
	w := r.WebSocket
	if w == nil {
		return nil
	}
	name := "WebSocket"
	if w.HTTP2 {
		name = "WebSocket over HTTP/2 (RFC 8441)"
	}
	if w.Hold {
		return []string{name, "held (a ping every " + formatDuration(w.Ping) + ")"}
	}
	kind := "binary"
	if w.Text {
		kind = "text"
	}
	parts := []string{name, fmt.Sprintf("%s-byte %s messages, %d in flight per connection", formatCount(int64(w.Size)), kind, w.Inflight)}
	if w.DeflateOffered {
		parts = append(parts, "permessage-deflate offered")
	}
	return parts
}

// webSocketFacts are the WebSocket section of Text and HTML, after the
// errors: upgrades (times, failures by status, deflate agreed), messages
// and bytes each way, close codes, pings, held connections. An HTTP run
// has none.
func webSocketFacts(r *result.Result) []fact {
	w := r.WebSocket
	if w == nil {
		return nil
	}
	up := plural(w.Upgrades, "upgrade", "upgrades")
	if h := orEmpty(w.Upgrade); h.TotalCount() > 0 {
		s := newStats(h)
		up = fmt.Sprintf("p50 %s, p99 %s, max %s (%s)", formatMicros(float64(s.P50)), formatMicros(float64(s.P99)),
			formatMicros(float64(s.Max)), up)
	}
	if w.DeflateOffered {
		up += ", permessage-deflate on " + formatCount(w.Deflate)
	}
	if w.UpgradeFailed > 0 {
		up += fmt.Sprintf(", %s failed (%s)", formatCount(w.UpgradeFailed), codeCounts("status ", w.UpgradeStatus))
	}
	facts := []fact{{"Upgrades", up}}
	if !w.Hold || w.MessagesSent+w.MessagesReceived > 0 {
		facts = append(facts, fact{"Messages", fmt.Sprintf("%s sent (%s), %s received (%s)",
			formatCount(w.MessagesSent), formatBytes(float64(w.BytesSent)), formatCount(w.MessagesReceived), formatBytes(float64(w.BytesReceived)))})
	}
	closes := "none"
	if len(w.Closes) > 0 {
		closes = codeCounts("", w.Closes)
	}
	facts = append(facts,
		fact{"Closes", closes},
		fact{"Pings", fmt.Sprintf("%s sent, %s pongs received; %s from the server (answered)",
			formatCount(w.PingsSent), formatCount(w.PongsReceived), formatCount(w.PingsReceived))},
		fact{"Held", fmt.Sprintf("%s of %s open at the end", formatCount(w.Held), plural(int64(r.Connections), "connection", "connections"))},
	)
	return facts
}

// codeCounts lists counts by code in code order, e.g. "1000: 3, 4001: 1".
func codeCounts(prefix string, m map[int]int64) string {
	codes := make([]int, 0, len(m))
	for code, n := range m {
		if n != 0 {
			codes = append(codes, code)
		}
	}
	sort.Ints(codes)
	parts := make([]string, len(codes))
	for i, code := range codes {
		parts[i] = fmt.Sprintf("%s%d: %s", prefix, code, formatCount(m[code]))
	}
	return strings.Join(parts, ", ")
}
