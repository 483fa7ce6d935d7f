package main

import (
	"testing"

	"github.com/gust-http/gust/peers/internal/peer"
	"github.com/gust-http/gust/peers/internal/wscheck"
)

func TestWebSocketPaths(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tls     peer.TLSFlags
		deflate bool
	}{
		{"ws", peer.TLSFlags{}, false},
		{"ws with -ws-deflate", peer.TLSFlags{}, true},
		{"wss with a self-signed certificate", peer.TLSFlags{SelfSigned: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := peer.Flags{TLS: tc.tls}
			addr := wscheck.StartHTTP(t, f, newHandler(f, tc.deflate))
			wscheck.Run(t, addr, tc.tls.On(), tc.deflate)
		})
	}
}
