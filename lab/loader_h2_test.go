package lab

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestGustLoaderRunsH2CCells: the in-process gust loader runs an h2c cell
// as gust load --http2 -m N: every request arrives over HTTP/2, with the
// scenario's streams on each connection.
func TestGustLoaderRunsH2CCells(t *testing.T) {
	var h1, h2, active, peak atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			h2.Add(1)
		} else {
			h1.Add(1)
		}
		n := active.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(time.Millisecond) // a real delay: a connection's streams overlap, for peak
		active.Add(-1)
		w.Write([]byte("Hello, Go!"))
	}), Protocols: &http.Protocols{}}
	srv.Protocols.SetUnencryptedHTTP2(true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()

	sc := Scenario{Name: "h2c", Connections: 2, Duration: Duration(500 * time.Millisecond), HTTP2: &HTTP2{Streams: 8}}
	res, err := GustLoader{Loops: 1}.Load(context.Background(), "http://"+ln.Addr().String()+"/", sc)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors != 0 || h1.Load() != 0 || h2.Load() < res.Requests {
		t.Errorf("requests %d, errors %d; server saw %d over HTTP/2 and %d not", res.Requests, res.Errors, h2.Load(), h1.Load())
	}
	if p := peak.Load(); p < 9 || p > 16 {
		t.Errorf("at most %d requests at once on the server, want up to 2 connections x 8 streams", p)
	}
}
