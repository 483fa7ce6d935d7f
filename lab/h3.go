package lab

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/gust-http/gust/load"
)

// HTTP3 makes a scenario speak HTTP/3 over QUIC (mode h3): always
// encrypted, so the URL is https:// with or without a "tls" field, and
// always on kept-alive connections, each on its own UDP socket.
type HTTP3 struct {
	// Streams is the number of concurrent request streams per connection
	// (as gust load -m); 0 means 1.
	Streams int `json:"streams,omitempty"`
}

// ModeH3 is HTTP/3 over QUIC (ALPN h3) on UDP, as Scenario.Mode names it.
const ModeH3 = "h3"

// quicgoModeFlags are the HTTP/3 peer's flags: it serves nothing else,
// and QUIC needs its certificate.
var quicgoModeFlags = map[string]string{ModeH3: "-tls-self-signed"}

// validateHTTP3 refuses an http3 field with what HTTP/3 cannot take.
func (s Scenario) validateHTTP3() error {
	h := s.HTTP3
	switch {
	case h == nil:
		return nil
	case h.Streams < 0 || h.Streams > load.MaxStreams:
		return fmt.Errorf("scenario %q: http3.streams must be between 1 and %d, got %d", s.Name, load.MaxStreams, h.Streams)
	case s.HTTP2 != nil:
		return fmt.Errorf("scenario %q: give http2 or http3, not both", s.Name)
	case !s.KeepAliveOn() || s.Pipeline > 1:
		return fmt.Errorf("scenario %q: http3 multiplexes streams on kept-alive QUIC connections: drop keepalive and pipeline", s.Name)
	case s.TLS != nil && s.TLS.Resume:
		return fmt.Errorf("scenario %q: http3 keeps its connections, so there is nothing to resume: drop tls.resume", s.Name)
	case s.File != nil:
		return fmt.Errorf("scenario %q: file scenarios are HTTP/1.1: drop http3 or file", s.Name)
	case s.WebSocket != nil:
		return fmt.Errorf("scenario %q: WebSocket over HTTP/3 is not supported: drop http3 or websocket", s.Name)
	case s.Attack != nil:
		return fmt.Errorf("scenario %q: attacks are TCP connections, and an HTTP/3 server listens on UDP: drop attack", s.Name)
	}
	return nil
}

// freeUDPAddr returns a loopback address with a UDP port that was free a
// moment ago, for a server that will listen on QUIC.
func freeUDPAddr() (string, error) {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free UDP port: %w", err)
	}
	defer c.Close()
	return c.LocalAddr().String(), nil
}

// probeH3 sends one HTTP/3 request to url with gust's own load generator
// (a QUIC handshake, then one GET, the certificate not checked) and says
// why it got no answer, if it got none.
func probeH3(ctx context.Context, url string, timeout time.Duration) error {
	res, err := load.Run(ctx, load.Config{
		URL:         url,
		HTTP3:       true,
		Connections: 1,
		Loops:       1,
		Requests:    1,
		Timeout:     timeout,
		TLS:         load.TLSConfig{Insecure: true},
	})
	switch {
	case err != nil:
		return err
	case res.Requests < 1:
		return fmt.Errorf("no HTTP/3 answer from %s (%d errors)", url, res.ErrorCount())
	}
	return nil
}
