package server

import "github.com/gust-http/gust/internal/http2"

// HTTP2Config holds a Server's HTTP/2 limits (Linux engine). The zero value
// of every field picks the default named beside it.
type HTTP2Config struct {
	// OverTLS offers HTTP/2 by ALPN ("h2" before "http/1.1") on a server
	// with Config.TLS. Off by default: TLS clients get HTTP/1.1.
	OverTLS bool
	// MaxConcurrentStreams is advertised as SETTINGS_MAX_CONCURRENT_STREAMS;
	// a stream beyond it is refused with RST_STREAM(REFUSED_STREAM).
	// Default 100.
	MaxConcurrentStreams int
	// StreamWindow is each stream's receive window: what a client may send
	// of a request body before the handler reads it. Default 1 MiB.
	StreamWindow uint32
	// ConnWindow is the connection's receive window. Default 4 MiB.
	ConnWindow uint32
	// MaxHeaderListSize bounds a request's decoded header block, advertised
	// as SETTINGS_MAX_HEADER_LIST_SIZE; past it the request gets 431.
	// Zero means Config.MaxHeaderBytes.
	MaxHeaderListSize uint32
	// MaxResets bounds Rapid Reset (CVE-2023-44487): streams reset by the
	// client or refused, less one per completed response; past it the
	// connection ends with ENHANCE_YOUR_CALM. Default 200.
	MaxResets int
	// ExtendedConnect advertises SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC
	// 8441), so that clients open WebSockets as extended CONNECT streams
	// of an HTTP/2 connection, which Ctx.UpgradeWebSocket and
	// UpgradeWebSocket accept. Off by default, as in Go's net/http: a
	// browser that sees it opens wss:// on its HTTP/2 connection, which a
	// handler that hijacks for a WebSocket library cannot serve.
	ExtendedConnect bool
}

// engineConfig is the sans-I/O engine's configuration for a connection.
func (c *Config) h2EngineConfig() http2.ServerConfig {
	h := c.HTTP2
	list := h.MaxHeaderListSize
	if list == 0 {
		list = uint32(c.MaxHeaderBytes)
	}
	conn := h.ConnWindow
	if conn == 0 {
		conn = 4 << 20
	}
	return http2.ServerConfig{
		MaxStreams:            h.MaxConcurrentStreams,
		StreamWindow:          h.StreamWindow,
		ConnWindow:            conn,
		Headers:               http2.HeaderLimits{MaxHeaderListSize: list},
		MaxResets:             h.MaxResets,
		ManualBodyCredit:      true,
		EnableConnectProtocol: h.ExtendedConnect,
	}
}
