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
	h3qlog "github.com/quic-go/quic-go/http3/qlog"
	"github.com/quic-go/quic-go/qlogwriter"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/peers/internal/peer"
)

// goAwaySeen is a connection's qlog trace that only watches for the
// server's GOAWAY. quic-go's http3.Server records the frame as it creates
// it, once its accept loop, told to shut down, finds no stream waiting;
// every stream it accepts after is rejected with H3_REQUEST_REJECTED,
// none processed.
type goAwaySeen struct {
	once sync.Once
	sent chan struct{}
}

func (g *goAwaySeen) AddProducer() qlogwriter.Recorder { return g }
func (g *goAwaySeen) Close() error                     { return nil }

func (g *goAwaySeen) RecordEvent(e qlogwriter.Event) {
	if fc, ok := e.(h3qlog.FrameCreated); ok {
		if _, ok := fc.Frame.Frame.(h3qlog.GoAwayFrame); ok {
			g.once.Do(func() { close(g.sent) })
		}
	}
}

// quic-go's graceful Shutdown of an http3.Server sends GOAWAY and
// rejects the streams after the last it accepted with
// H3_REQUEST_REJECTED. Here every connection has a server of its own
// (ServeQUICConn) that shuts down after 50 requests, while the listener
// goes on accepting: the run carries on over new connections, every
// request is processed exactly once and answered, and the report counts
// the connections the GOAWAYs ended.
//
// quic-go processes every stream it accepted before its GOAWAY, and it
// goes on accepting the streams that arrive until it finds none waiting,
// so on its own it bounds nothing: a slow machine let a connection take
// more than 50 plus the 16 in flight. The requests past the 50th of a
// connection are therefore answered only once its GOAWAY is made: until
// then the client, with at most 16 requests in flight on a connection and
// no more answers coming, can open at most 16 streams past the 50th, and
// every stream after the GOAWAY is rejected, so a connection processes at
// most 66.
func TestGustLoadFollowsQuicGoGoAway(t *testing.T) {
	const perConn, streams, conns, total = 50, 16, 2, 1000
	tc, err := peer.TLSConfig("quicgo", peer.Flags{TLS: peer.TLSFlags{SelfSigned: true}}, "h3")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := quic.ListenAddrEarly("127.0.0.1:0", http3.ConfigureTLSConfig(tc), &quic.Config{MaxIdleTimeout: time.Minute,
		Tracer: func(context.Context, bool, quic.ConnectionID) qlogwriter.Trace {
			return &goAwaySeen{sent: make(chan struct{})}
		}})
	if err != nil {
		t.Fatal(err)
	}
	var processed, shutdowns, stuck atomic.Int64
	var mu sync.Mutex
	var perConnection []*atomic.Int64 // requests processed on each connection
	var servers sync.WaitGroup
	t.Cleanup(func() { ln.Close(); servers.Wait() })
	go func() {
		for {
			conn, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			goAway := conn.QlogTrace().(*goAwaySeen).sent
			n := new(atomic.Int64)
			mu.Lock()
			perConnection = append(perConnection, n)
			mu.Unlock()
			srv := new(http3.Server)
			*srv = *newServer(tc, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				k := n.Add(1)
				if k == perConn {
					shutdowns.Add(1)
					go func() {
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						defer cancel()
						srv.Shutdown(ctx)
					}()
				}
				if k > perConn {
					select {
					case <-goAway:
					case <-time.After(10 * time.Second):
						stuck.Add(1)
					}
				}
				processed.Add(1)
				w.Write([]byte("Hello, Go!"))
			}))
			servers.Go(func() {
				srv.ServeQUICConn(conn)
				conn.CloseWithError(0, "")
			})
		}
	}()
	res := runH3(t, load.Config{URL: "https://" + ln.Addr().String() + "/", Connections: conns, Streams: streams, Requests: total, Loops: 1})
	q := res.QUIC
	mu.Lock()
	var most, unended int64
	for _, n := range perConnection {
		most = max(most, n.Load())
		if k := n.Load(); k > 0 && k < perConn {
			unended++
		}
	}
	mu.Unlock()
	t.Logf("status %v, errors %v, processed %d, shutdowns %d, handshakes %d, closes %v, retried %d, most on a connection %d",
		res.Status, res.Errors, processed.Load(), shutdowns.Load(), q.Handshakes(), q.Closes, res.Retried, most)
	if res.Status[200] != total || res.ErrorCount() != 0 || processed.Load() != total {
		t.Errorf("status %v, errors %v, %d processed; want all %d answered, each processed once", res.Status, res.Errors, processed.Load(), total)
	}
	if stuck.Load() > 0 {
		t.Errorf("%d requests past a connection's %dth waited 10 s for its GOAWAY", stuck.Load(), perConn)
	}
	if most > perConn+streams {
		t.Errorf("a connection processed %d requests; with %d in flight it can take at most %d before its GOAWAY", most, streams, perConn+streams)
	}
	// Only the connections in use when the run ends are left before
	// their 50th request; every other one went until its GOAWAY, and
	// processed at most 66.
	if unended > conns {
		t.Errorf("%d connections ended before their %dth request; want at most the %d in use at the end", unended, perConn, conns)
	}
	least := (total - conns*(perConn-1) + perConn + streams - 1) / (perConn + streams)
	if sd := shutdowns.Load(); sd < int64(least) || q.Handshakes() < sd {
		t.Errorf("%d shutdowns in %d handshakes; want at least %d, each on a connection of its own", sd, q.Handshakes(), least)
	}
	// The last two may go away as the run ends.
	if n := q.Closes["peer: GOAWAY"]; n > shutdowns.Load() || n < shutdowns.Load()-2 {
		t.Errorf("closes %v after %d GOAWAYs; want every connection a GOAWAY ended counted, but for the last two at most", q.Closes, shutdowns.Load())
	}
}
