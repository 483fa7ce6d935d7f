package main

import (
	"crypto/tls"
	"net"

	"github.com/gust-http/gust/peers/internal/peer"
)

// listen listens as peer.Listen does and, when the flags ask for TLS,
// wraps the listener in crypto/tls offering http/1.1 by ALPN: fasthttp
// serves TLS the same way (its ServeTLS wraps a tls.Listener), only with
// the certificate read from files.
func listen(f peer.Flags) (net.Listener, *peer.DebugServer, error) {
	cfg, err := peer.TLSConfig("fasthttp", f, "http/1.1")
	if err != nil {
		return nil, nil, err
	}
	ln, dbg, err := peer.Listen("fasthttp", f)
	if err != nil || cfg == nil {
		return ln, dbg, err
	}
	return tls.NewListener(ln, cfg), dbg, nil
}
