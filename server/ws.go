package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/websocket"
)

// WebSocket says how connections upgraded with Ctx.UpgradeWebSocket (or
// UpgradeWebSocket, from the net/http adapter) behave: their callbacks and
// limits. One WebSocket value serves any number of connections and must
// not be changed once in use. The zero value of every field but the
// callbacks picks the default named beside it.
//
// On the Linux engine an upgraded connection stays on its event loop: no
// goroutine waits on it, and idle it holds no buffer. The callbacks run on
// the loop, one at a time per loop, so they must not block: a callback
// with slow work starts a goroutine, which may call the WSConn's methods
// (they are safe from any goroutine).
type WebSocket struct {
	// Subprotocols lists the subprotocols the server speaks, in its order
	// of preference; the first of them the client offers in
	// Sec-WebSocket-Protocol is chosen (WSConn.Subprotocol). None: no
	// subprotocol is chosen, whatever the client offers.
	Subprotocols []string
	// Deflate accepts permessage-deflate (RFC 7692) when a client offers
	// it. Compression costs CPU for every message and memory: see
	// DeflateContextTakeover.
	Deflate bool
	// DeflateContextTakeover keeps each connection's compression context
	// between messages (better ratios for similar messages), at the cost
	// of a compressor and a 32 KiB window per direction held by every
	// connection for its whole life. Off (the default), the server asks
	// for no context takeover in both directions and compressors come
	// from a pool for one message at a time.
	DeflateContextTakeover bool
	// MaxMessage bounds a received message, after inflating; a larger
	// one closes the connection with 1009. A compressed message may take
	// a few bytes more on the wire than it inflates to (random bytes do),
	// and is taken. Default 1 MiB.
	MaxMessage int
	// MaxBuffered bounds the bytes queued for one connection that its
	// client has not read yet. Past it, Send drops the message and returns
	// ErrWSBufferFull (the connection stays open: a slow reader loses
	// messages, not the others' throughput); a socket that takes nothing
	// for Config.WriteTimeout is closed. Default 4 MiB.
	MaxBuffered int
	// PingInterval is how long a connection may be silent before the
	// server pings it; if nothing arrives within another PingInterval the
	// connection is closed (OnClose sees 1006). Default 30 s; negative: never.
	PingInterval time.Duration

	// OnOpen is called once the upgrade's response is queued, before any
	// message. It runs on the connection's loop and must not wait.
	OnOpen func(ws *WSConn)
	// OnMessage is called for every message with its type and payload;
	// data is valid only until it returns. A connection's calls come one
	// at a time, in order. It runs on the loop; in Auto mode one that
	// outlives HandlerBudget is moved off (its goroutine keeps the
	// connection, or over HTTP/2 (RFC 8441) the stream, the loop goes on
	// in another), so it may wait, at the cost of one budget of the
	// loop's time each time it does.
	OnMessage func(ws *WSConn, typ WSMessageType, data []byte)
	// OnClose is called once when the connection ends, with the close
	// code the client sent (1005 if its close had none), 1006 if it went
	// without a close, or the code the server closed with on a protocol
	// fault of the client's (1002, 1007, 1009). It runs on the loop and
	// must not wait.
	OnClose func(ws *WSConn, code int, reason string)
}

// WSMessageType is a WebSocket message's type: text (valid UTF-8) or
// binary.
type WSMessageType uint8

// The message types.
const (
	WSText   WSMessageType = WSMessageType(websocket.OpText)
	WSBinary WSMessageType = WSMessageType(websocket.OpBinary)
)

// Errors of WSConn's methods.
var (
	// ErrWSClosed: the connection has closed, or is closing.
	ErrWSClosed = errors.New("server: WebSocket connection closed")
	// ErrWSBufferFull: the client has not read what was queued before,
	// past WebSocket.MaxBuffered; the message was dropped.
	ErrWSBufferFull = errors.New("server: WebSocket client is not reading (MaxBuffered); message dropped")
	// ErrWSUpgrade: the request is not a valid WebSocket upgrade; the
	// response (400 or 426 with the reason) is already set.
	ErrWSUpgrade = errors.New("server: not a valid WebSocket upgrade request")
)

const (
	defaultWSMaxMessage  = 1 << 20
	defaultWSMaxBuffered = 4 << 20
	defaultWSPing        = 30 * time.Second
)

// wsUpgrade is an accepted upgrade, kept with the Ctx until the response
// is written and the connection switches.
type wsUpgrade struct {
	cfg         *WebSocket
	accept      [28]byte
	subprotocol string
	deflate     *websocket.DeflateParams
	extension   []byte // the Sec-WebSocket-Extensions answer
}

// subprotoIndex is the chosen subprotocol's index in cfg.Subprotocols, or
// -1 for none (or past what an int8 holds, which no handshake offers).
func (u *wsUpgrade) subprotoIndex() int8 {
	if u.subprotocol != "" {
		for i, p := range u.cfg.Subprotocols {
			if p == u.subprotocol && i < 128 {
				return int8(i)
			}
		}
	}
	return -1
}

// UpgradeWebSocket accepts the request as a WebSocket opening handshake
// (RFC 6455 section 4.2): a GET over HTTP/1.1 with Upgrade: websocket,
// Connection: upgrade, Sec-WebSocket-Version: 13 and a valid
// Sec-WebSocket-Key. Once the handler returns, the server answers 101 and
// the connection speaks WebSocket as ws says; the handler's status and
// body are not sent (headers it set are, beside the handshake's). A
// request that is no valid upgrade gets 400 with the reason (426 with
// Sec-WebSocket-Version: 13 for another version) and ErrWSUpgrade.
//
// Over HTTP/2 (with HTTP2Config.ExtendedConnect) the handshake is RFC
// 8441's: an extended CONNECT with :protocol websocket (the Header
// ":protocol", as in net/http) and Sec-WebSocket-Version: 13; the answer
// is 200, and the stream alone becomes the WebSocket, beside the
// connection's other streams.
func (c *Ctx) UpgradeWebSocket(ws *WebSocket) error {
	if reason := c.checkWSUpgrade(); reason != "" {
		c.SetStatus(http.StatusBadRequest)
		if reason == wsBadVersion {
			c.SetStatus(http.StatusUpgradeRequired)
			c.SetHeader("Sec-WebSocket-Version", "13")
		}
		c.SetContentType("text/plain; charset=utf-8")
		c.SetBodyString(reason + "\n")
		return ErrWSUpgrade
	}
	if !c.canUpgrade() {
		c.SetStatus(http.StatusNotImplemented)
		c.SetBodyString("WebSocket needs the Linux engine\n")
		return errors.New("server: WebSocket needs the Linux engine")
	}
	c.upgraded = wsUpgrade{cfg: ws}
	u := &c.upgraded
	if c.req.Major == 1 {
		websocket.AcceptKey(u.accept[:0], c.req.Get("Sec-WebSocket-Key"))
	}
	if len(ws.Subprotocols) > 0 {
		u.subprotocol = c.pickSubprotocol(ws.Subprotocols)
	}
	if ws.Deflate {
		for _, h := range c.req.Headers {
			if !http1.EqualFold(h.Name, "Sec-WebSocket-Extensions") {
				continue
			}
			if p, resp, ok := websocket.NegotiateDeflate(h.Value, ws.DeflateContextTakeover); ok {
				u.deflate, u.extension = &p, resp
				break
			}
		}
	}
	c.upgrade = u
	return nil
}

const wsBadVersion = "Sec-WebSocket-Version must be 13"

// checkWSUpgrade says what is wrong with the request as a WebSocket
// upgrade, or "" if nothing is.
func (c *Ctx) checkWSUpgrade() string {
	r := &c.req
	if r.Major == 2 {
		return c.checkWSConnect()
	}
	switch {
	case string(r.Method) != "GET":
		return "a WebSocket upgrade must be a GET"
	case r.Major != 1 || r.Minor < 1:
		return "a WebSocket upgrade needs HTTP/1.1"
	case !c.headerHasToken("Upgrade", "websocket"):
		return "Upgrade must name websocket"
	case !c.headerHasToken("Connection", "upgrade"):
		return "Connection must name upgrade"
	case string(r.Get("Sec-WebSocket-Version")) != "13":
		return wsBadVersion
	case !websocket.ValidKey(r.Get("Sec-WebSocket-Key")):
		return "Sec-WebSocket-Key must be 16 bytes in base64"
	case c.hijacked || c.streaming || c.upgrade != nil:
		return "the response has already begun"
	}
	return ""
}

// checkWSConnect is checkWSUpgrade over HTTP/2 (RFC 8441 section 5): an
// extended CONNECT with :protocol websocket and Sec-WebSocket-Version 13,
// no key (the stream is the handshake's proof).
func (c *Ctx) checkWSConnect() string {
	r := &c.req
	switch {
	case string(r.Method) != "CONNECT" || len(r.Get(":protocol")) == 0:
		return "a WebSocket over HTTP/2 is an extended CONNECT with :protocol websocket (RFC 8441)"
	case string(r.Get(":protocol")) != "websocket":
		return ":protocol must be websocket"
	case string(r.Get("Sec-WebSocket-Version")) != "13":
		return wsBadVersion
	case c.hijacked || c.streaming || c.upgrade != nil:
		return "the response has already begun"
	}
	return ""
}

// headerHasToken reports whether any field name lists token
// (case-insensitive), as Connection and Upgrade do.
func (c *Ctx) headerHasToken(name, token string) bool {
	for _, h := range c.req.Headers {
		if http1.EqualFold(h.Name, name) && websocket.HasToken(h.Value, token) {
			return true
		}
	}
	return false
}

// pickSubprotocol returns the first of ours that the client offers.
func (c *Ctx) pickSubprotocol(ours []string) string {
	for _, p := range ours {
		for _, h := range c.req.Headers {
			if http1.EqualFold(h.Name, "Sec-WebSocket-Protocol") && websocket.HasToken(h.Value, p) {
				return p
			}
		}
	}
	return ""
}

// appendUpgrade appends the 101 response of an accepted upgrade.
func (c *Ctx) appendUpgrade(dst []byte) []byte {
	u := c.upgrade
	dst = append(dst, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "...)
	dst = append(dst, u.accept[:]...)
	if u.subprotocol != "" {
		dst = append(dst, "\r\nSec-WebSocket-Protocol: "...)
		dst = append(dst, u.subprotocol...)
	}
	if u.extension != nil {
		dst = append(dst, "\r\nSec-WebSocket-Extensions: "...)
		dst = append(dst, u.extension...)
	}
	dst = append(dst, "\r\n"...)
	dst = append(dst, c.header...)
	return append(dst, "\r\n"...)
}

// maxMessage, maxBuffered and pingInterval apply the defaults.
func (ws *WebSocket) maxMessage() int {
	if ws.MaxMessage > 0 {
		return ws.MaxMessage
	}
	return defaultWSMaxMessage
}

func (ws *WebSocket) maxBuffered() int {
	if ws.MaxBuffered > 0 {
		return ws.MaxBuffered
	}
	return defaultWSMaxBuffered
}

func (ws *WebSocket) pingInterval() time.Duration {
	switch {
	case ws.PingInterval < 0:
		return 0
	case ws.PingInterval == 0:
		return defaultWSPing
	}
	return ws.PingInterval
}

// UpgradeWebSocket is Ctx.UpgradeWebSocket for a net/http handler running
// on the server's adapter (HTTPHandler): once the handler returns, the
// connection answers 101 and stays on its loop, driven by ws's callbacks,
// with no goroutine per connection. Headers set on w go out with the 101.
// It fails, with the response set, for a request that is no valid upgrade,
// and for a ResponseWriter that is not the adapter's (use Hijack and a
// WebSocket library there).
func UpgradeWebSocket(w http.ResponseWriter, r *http.Request, ws *WebSocket) error {
	if onStream, err := upgradeStream(w, ws); onStream {
		return err
	}
	rw, ok := w.(*responseWriter)
	if !ok {
		http.Error(w, "WebSocket upgrade needs gust's adapter", http.StatusInternalServerError)
		return errors.New("server: UpgradeWebSocket needs a ResponseWriter of gust's HTTPHandler")
	}
	if rw.wroteHeader || rw.c.hijacked {
		return errors.New("server: UpgradeWebSocket after the response began")
	}
	for k, vs := range rw.header {
		for _, v := range vs {
			rw.c.SetHeader(k, v)
		}
	}
	rw.wroteHeader = true // nothing more of the handler's goes out
	return rw.c.UpgradeWebSocket(ws)
}
