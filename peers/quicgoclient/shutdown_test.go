package quicgoclient

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/transport"
	"github.com/gust-http/gust/server"
)

// Shutdown with a request in flight over HTTP/3: the server sends GOAWAY,
// the request is answered whole, the connection closes, and Shutdown
// returns once it has. In Pooled mode the handler runs on a worker while
// the loop sends the GOAWAY.
func TestShutdownLetsTheRequestInFlightFinish(t *testing.T) {
	for _, mode := range []server.Mode{server.Auto, server.Pooled} {
		t.Run(mode.String(), func(t *testing.T) { shutdownWithRequestInFlight(t, mode) })
	}
}

func shutdownWithRequestInFlight(t *testing.T, mode server.Mode) {
	cert, _, err := transport.SelfSigned([]string{"localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	s := &server.Server{Config: server.Config{Loops: 1, Mode: mode, HTTP3: true, TLS: &tls.Config{Certificates: []tls.Certificate{cert}}},
		Handler: server.HandlerFunc(func(c *server.Ctx) {
			if string(c.Path()) == "/slow" {
				close(entered)
				<-release
			}
			c.WriteString("finished " + string(c.Path()))
		})}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	origin := "https://" + s.Addr().String()
	cl := client(t)
	if res, err := cl.Get(origin + "/warm"); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	answer := make(chan string, 1)
	go func() {
		res, err := cl.Get(origin + "/slow")
		if err != nil {
			answer <- "error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		answer <- string(b)
	}()
	<-entered
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- s.Shutdown(ctx)
	}()
	// Shutdown waits for the request in flight.
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().QUICConns != 1 || s.Stats().InFlight != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("stats while shutting down: %+v", s.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned with a request in flight: %v", err)
	default:
	}
	// The loop closes its listener just before it sends the GOAWAY, in
	// the same step: the response then comes after the GOAWAY.
	for {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener still accepts while shutting down")
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if got := <-answer; got != "finished /slow" {
		t.Errorf("the request in flight: %q", got)
	}
	select {
	case err := <-shut:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return after the last request")
	}
	if err := <-served; err != server.ErrServerClosed {
		t.Errorf("Serve: %v", err)
	}
	if n := s.Stats().QUICConns; n != 0 {
		t.Errorf("%d QUIC connections open after Shutdown", n)
	}
}
