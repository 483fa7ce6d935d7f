package main

import (
	"testing"

	"github.com/lesismal/nbio/nbhttp"

	"github.com/gust-http/gust/peers/internal/peer"
	"github.com/gust-http/gust/peers/internal/wscheck"
)

func TestWebSocketPaths(t *testing.T) {
	if raceDetector {
		// nbio's accept goroutine hands each connection to a poller through
		// epoll, which the race detector cannot see: it reports races
		// inside nbio (nbhttp.Conn's address, written at accept, read by
		// OnComplete) on every run of this test, which opens many
		// connections; the older tests here hit them too under -count=10.
		t.Skip("nbio v1.6.12 races inside itself under -race; run go test ./nbio without -race")
	}
	for _, m := range wscheck.Modes {
		t.Run(m.Name, func(t *testing.T) {
			f := peer.Flags{Addr: wscheck.FreeAddr(t), TLS: m.TLS}
			conf := newConfig(f, m.Deflate)
			if err := configure(&conf, f); err != nil {
				t.Fatal(err)
			}
			engine := nbhttp.NewEngine(conf)
			if err := engine.Start(); err != nil {
				t.Fatal(err)
			}
			defer engine.Stop()
			// nbio v1.6.12 calls OnMessage only for a message with a payload.
			wscheck.Run(t, wscheck.Target{Addr: f.Addr, TLS: m.TLS.On(), Deflate: m.Deflate, NoEmpty: true})
		})
	}
}
