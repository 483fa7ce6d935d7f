package server

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAdapterHijack takes a connection over after a pipelined request:
// the earlier response arrives first, the bytes sent after the upgrade
// request reach the handler through the returned reader, the server stops
// counting the connection, and Shutdown leaves it alone.
func TestAdapterHijack(t *testing.T) {
	handlerDone := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/upgrade" {
			io.WriteString(w, "plain")
			return
		}
		defer close(handlerDone)
		nc, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("Hijack: %v", err)
			return
		}
		defer nc.Close()
		if _, _, err := w.(http.Hijacker).Hijack(); err != http.ErrHijacked {
			t.Errorf("a second Hijack: %v, want ErrHijacked", err)
		}
		if _, err := w.Write([]byte("x")); err != http.ErrHijacked {
			t.Errorf("Write after Hijack: %v, want ErrHijacked", err)
		}
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
		rw.Flush()
		// Echo lines until "bye".
		for {
			line, err := rw.ReadString('\n')
			if err != nil {
				return
			}
			rw.WriteString("echo " + line)
			rw.Flush()
			if line == "bye\n" {
				return
			}
		}
	})
	s := &Server{Handler: HTTPHandler(h), Config: Config{ErrorLog: discardLog()}}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	c, r := rawConn(t, s)
	io.WriteString(c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /upgrade HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nfirst\n")
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := io.ReadAll(resp.Body); string(body) != "plain" {
		t.Fatalf("the pipelined response before the upgrade: %q", body)
	}
	resp, err = http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("upgrade response %v, %v", resp, err)
	}
	expectLine(t, r, "echo first\n")

	// The server has let go of it: Shutdown returns at once and the
	// connection still works.
	if !waitFor(2*time.Second, func() bool { return s.Stats().OpenConns == 0 && s.Stats().InFlight == 0 }) {
		t.Errorf("the server still counts the hijacked connection: %+v", s.Stats())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown with a hijacked connection open: %v", err)
	}
	io.WriteString(c, "second\n")
	expectLine(t, r, "echo second\n")
	io.WriteString(c, "bye\n")
	expectLine(t, r, "echo bye\n")
	select {
	case <-handlerDone:
	case <-time.After(2 * time.Second):
		t.Error("the hijacking handler did not finish")
	}
}

func expectLine(t *testing.T, r *bufio.Reader, want string) {
	t.Helper()
	got, err := r.ReadString('\n')
	if err != nil || got != want {
		t.Fatalf("read %q, %v; want %q", got, err, want)
	}
}

// TestHijackNeedsAHijackableConnection: a Ctx whose connection cannot be
// taken over says so instead of failing later.
func TestHijackNeedsAHijackableConnection(t *testing.T) {
	w := &responseWriter{c: &Ctx{}, header: http.Header{}}
	if _, _, err := w.Hijack(); err == nil || !strings.Contains(err.Error(), "cannot be hijacked") {
		t.Errorf("Hijack without a connection: %v", err)
	}
}
