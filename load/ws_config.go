package load

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/websocket"
)

// WebSocketConfig is Config.WebSocket: how a ws:// or wss:// run sends its
// messages, or holds its connections. The zero value sends 64-byte binary
// messages, one in flight per connection, without compression.
type WebSocketConfig struct {
	// Size is each message's payload in bytes when Config.Body is empty
	// (default 64, at most MaxWebSocketMessage).
	Size int
	// Text sends text frames (the payload must be valid UTF-8); binary
	// frames otherwise.
	Text bool
	// Inflight is how many messages each connection keeps in flight
	// (default 1, at most 1024). Each message the server sends back
	// completes the oldest in flight, as an echo server answers in order.
	Inflight int
	// Deflate offers permessage-deflate (RFC 7692) without context
	// takeover in either direction; a server that declines it gets
	// uncompressed messages.
	Deflate bool
	// Hold connects, upgrades and holds every connection without sending
	// messages, only a ping every Ping; Result.WebSocket.Held counts the
	// connections still open at the end. It needs a Duration, and takes no
	// Rate, Requests or Body.
	Hold bool
	// Ping is how often a held connection pings (default 30s). Without
	// Hold it must be zero.
	Ping time.Duration
}

// Defaults and limits of WebSocketConfig.
const (
	DefaultWebSocketSize = 64
	DefaultWebSocketPing = 30 * time.Second
	// MaxWebSocketMessage bounds a message's size (internal/websocket's
	// own limit for what it receives).
	MaxWebSocketMessage  = websocket.DefaultMaxMessage
	maxWebSocketInflight = 1024
)

// isWebSocketURL reports whether url is a ws:// or wss:// URL.
func isWebSocketURL(url string) bool {
	u := strings.ToLower(url)
	return strings.HasPrefix(u, "ws://") || strings.HasPrefix(u, "wss://")
}

func (w WebSocketConfig) withDefaults() WebSocketConfig {
	if w.Size == 0 {
		w.Size = DefaultWebSocketSize
	}
	if w.Inflight == 0 {
		w.Inflight = 1
	}
	if w.Hold && w.Ping == 0 {
		w.Ping = DefaultWebSocketPing
	}
	return w
}

// validateWebSocket checks Config.WebSocket and what a WebSocket run
// cannot take; ws is true for a ws:// or wss:// URL.
func (c *Config) validateWebSocket(ws bool) error {
	w := &c.WebSocket
	if !ws {
		if *w != (WebSocketConfig{}) {
			return errors.New("WebSocket settings (--ws-*) need a ws:// or wss:// URL")
		}
		return nil
	}
	switch {
	case c.AutoProtocol:
		return errors.New("a WebSocket is either an HTTP/1.1 upgrade or, with --http2, an HTTP/2 extended CONNECT: drop --proto")
	case c.Pipeline > 1:
		return errors.New("for messages in flight per connection use --ws-inflight, not --pipeline")
	case c.DisableKeepAlive:
		return errors.New("a WebSocket keeps its connection: drop --disable-keepalive")
	case c.Source != nil:
		return errors.New("a WebSocket run sends messages, not a log's requests: use an http:// or https:// target")
	case c.Method != "GET":
		return fmt.Errorf("a WebSocket upgrade is a GET request, not %s: drop -m", c.Method)
	case w.Size < 0 || w.Size > MaxWebSocketMessage:
		return fmt.Errorf("--ws-size must be between 1 and %d bytes, got %d", MaxWebSocketMessage, w.Size)
	case len(c.Body) > MaxWebSocketMessage:
		return fmt.Errorf("a WebSocket message (-d, -D) must be at most %d bytes, got %d", MaxWebSocketMessage, len(c.Body))
	case w.Inflight < 1 || w.Inflight > maxWebSocketInflight:
		return fmt.Errorf("--ws-inflight must be between 1 and %d, got %d", maxWebSocketInflight, w.Inflight)
	case w.Ping < 0:
		return fmt.Errorf("--ws-ping must be positive, got %s", w.Ping)
	case w.Ping > 0 && !w.Hold:
		return errors.New("--ws-ping is the ping interval of held connections: add --ws-hold, or drop --ws-ping")
	case w.Text && !utf8.Valid(c.Body):
		return errors.New("--ws-text needs a payload of valid UTF-8: drop --ws-text to send it as binary")
	case w.Hold && (c.Rate > 0 || c.Requests > 0):
		return errors.New("--ws-hold sends no messages: give a duration (-z), and no --rate, -q or -n")
	case w.Hold && len(c.Body) > 0:
		return errors.New("--ws-hold sends no messages: drop -d and -D")
	}
	return nil
}

// wsRun is what every connection of a WebSocket run shares, made once:
// the pieces of the opening handshake and the message.
type wsRun struct {
	host, path string
	extra      []byte // the header lines of Config.Header but Host, each ending in CRLF
	offer      []byte // the Sec-WebSocket-Extensions offer; nil without Deflate
	op         websocket.Opcode
	payload    []byte
	// deflated is payload compressed once, without context and within a
	// 15-bit window, for a connection that agreed to permessage-deflate
	// with a 15-bit client window: each message is then this, masked.
	deflated []byte
	inflight int
	hold     bool
	clock    func() int64 // the loops' clock, read once per handshake
	// h2: over HTTP/2 (Config.HTTP2), each connection's WebSocket an
	// extended CONNECT, h2req (ws_h2.go).
	h2    bool
	h2req http2.Request
}

// newWSRun makes the WebSocket run of c, whose target is t.
func newWSRun(c *Config, t *target) (*wsRun, error) {
	w := c.WebSocket
	r := &wsRun{host: t.host, path: t.path, op: websocket.OpBinary, inflight: w.Inflight, hold: w.Hold}
	for _, h := range c.Header {
		if strings.EqualFold(h[0], "Host") {
			r.host = h[1]
			continue
		}
		r.extra = append(append(append(append(r.extra, h[0]...), ": "...), h[1]...), "\r\n"...)
	}
	if w.Text {
		r.op = websocket.OpText
	}
	r.payload = c.Body
	if len(r.payload) == 0 && !w.Hold {
		r.payload = make([]byte, w.Size)
		for i := range r.payload {
			r.payload[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[i%36] // text or binary alike
		}
	}
	if w.Deflate {
		r.offer = websocket.AppendDeflateOffer(nil, websocket.DeflateParams{ServerNoContextTakeover: true, ClientNoContextTakeover: true})
		frame := websocket.AppendCompressedFrame(nil, r.op, r.payload)
		_, hn, err := websocket.ParseFrameHeader(frame)
		if err != nil || hn == 0 {
			return nil, fmt.Errorf("compress the WebSocket message: %v", err)
		}
		r.deflated = frame[hn:]
	}
	if c.HTTP2 {
		scheme := "http"
		if t.tls {
			scheme = "https"
		}
		var headers [][2]string
		for _, h := range c.Header {
			if !strings.EqualFold(h[0], "Host") {
				headers = append(headers, h)
			}
		}
		r.h2, r.h2req = true, wsH2Request(r, scheme, headers)
	}
	// The handshake is checked once here, so that a socket's never fails.
	if _, err := r.appendHandshake(nil, []byte("AAAAAAAAAAAAAAAAAAAAAA==")); err != nil {
		return nil, fmt.Errorf("bad URL %q for a WebSocket handshake: %v", c.URL, err)
	}
	return r, nil
}

// appendHandshake appends the opening handshake with key to out.
func (r *wsRun) appendHandshake(out, key []byte) ([]byte, error) {
	out, err := websocket.AppendClientHandshake(out, r.host, r.path, key, nil, r.offer)
	if err != nil {
		return out, err
	}
	out = append(out[:len(out)-2], r.extra...) // before the final CRLF
	return append(out, "\r\n"...), nil
}
