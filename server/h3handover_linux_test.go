package server

import (
	"context"
	"crypto/tls"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/load"
)

// A successor started on its predecessor's listeners (ListenFiles) serves
// HTTP/3 too once the predecessor has shut down: the UDP port goes on
// answering.
func TestHTTP3AfterHandover(t *testing.T) {
	cert, _, err := transport.SelfSigned([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Loops: 1, Mode: Inline, HTTP3: true, TLS: &tls.Config{Certificates: []tls.Certificate{cert}}}
	hello := func(name string) Handler { return HandlerFunc(func(c *Ctx) { c.WriteString(name) }) }
	first := &Server{Config: cfg, Handler: hello("first")}
	if err := first.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	firstDone := make(chan error, 1)
	go func() { firstDone <- first.Serve() }()
	url := "https://" + first.Addr().String() + "/"
	run := func(what string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := load.Run(ctx, load.Config{URL: url, HTTP3: true, TLS: load.TLSConfig{Insecure: true},
			Connections: 2, Requests: 200, Loops: 1, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if res.Status[200] != 200 {
			t.Fatalf("%s: status %v, errors %v; want 200 answered", what, res.Status, res.Errors)
		}
	}
	run("before the handover")

	files, err := first.ListenerFiles()
	if err != nil {
		t.Fatal(err)
	}
	second := &Server{Config: cfg, Handler: hello("second")}
	if err := second.ListenFiles(files); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		f.Close()
	}
	secondDone := make(chan error, 1)
	go func() { secondDone <- second.Serve() }()
	t.Cleanup(func() { second.Close(); <-secondDone })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-firstDone
	run("after the handover")
	if n := second.Stats().Requests; n < 200 {
		t.Errorf("the successor answered %d requests; want the 200 sent after the handover", n)
	}
}
