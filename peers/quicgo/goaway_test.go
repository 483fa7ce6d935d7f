package main

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/peers/internal/peer"
)

// quic-go's graceful Shutdown of an http3.Server sends GOAWAY and
// rejects the streams after the last it accepted with
// H3_REQUEST_REJECTED. Here every connection has a server of its own
// (ServeQUICConn) that shuts down after 50 requests, while the listener
// goes on accepting: the run carries on over new connections, every
// request is processed exactly once and answered, and the report counts
// the connections the GOAWAYs ended.
func TestGustLoadFollowsQuicGoGoAway(t *testing.T) {
	const perConn, total = 50, 1000
	tc, err := peer.TLSConfig("quicgo", peer.Flags{TLS: peer.TLSFlags{SelfSigned: true}}, "h3")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := quic.ListenAddrEarly("127.0.0.1:0", http3.ConfigureTLSConfig(tc), &quic.Config{MaxIdleTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var processed, shutdowns atomic.Int64
	var servers sync.WaitGroup
	t.Cleanup(func() { ln.Close(); servers.Wait() })
	go func() {
		for {
			conn, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			var n atomic.Int64
			srv := new(http3.Server)
			*srv = *newServer(tc, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				processed.Add(1)
				w.Write([]byte("Hello, Go!"))
				if n.Add(1) == perConn {
					shutdowns.Add(1)
					go func() {
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						defer cancel()
						srv.Shutdown(ctx)
					}()
				}
			}))
			servers.Go(func() {
				srv.ServeQUICConn(conn)
				conn.CloseWithError(0, "")
			})
		}
	}()
	res := runH3(t, load.Config{URL: "https://" + ln.Addr().String() + "/", Connections: 2, Streams: 16, Requests: total, Loops: 1})
	q := res.QUIC
	t.Logf("status %v, errors %v, processed %d, shutdowns %d, handshakes %d, closes %v, retried %d",
		res.Status, res.Errors, processed.Load(), shutdowns.Load(), q.Handshakes(), q.Closes, res.Retried)
	if res.Status[200] != total || res.ErrorCount() != 0 || processed.Load() != total {
		t.Errorf("status %v, errors %v, %d processed; want all %d answered, each processed once", res.Status, res.Errors, processed.Load(), total)
	}
	// A connection processes what it accepted before its GOAWAY, up to
	// 50 plus the 16 in flight; the last two may go away as the run ends.
	if sd := shutdowns.Load(); sd < total/(perConn+16) || q.Handshakes() < sd {
		t.Errorf("%d shutdowns in %d handshakes; want at least %d, each on a connection of its own", sd, q.Handshakes(), total/(perConn+16))
	}
	if n := q.Closes["peer: GOAWAY"]; n > shutdowns.Load() || n < shutdowns.Load()-2 {
		t.Errorf("closes %v after %d GOAWAYs; want every connection a GOAWAY ended counted, but for the last two at most", q.Closes, shutdowns.Load())
	}
}
