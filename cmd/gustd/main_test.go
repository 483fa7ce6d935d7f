package main

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
)

// TestBadInputIsOneLine: every bad invocation is refused with an error
// naming what is wrong, before anything listens.
func TestBadInputIsOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-mode", "fast"}, `-mode must be auto, pooled or inline, got "fast"`},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-loops=-1"}, "must not be negative"},
		{[]string{"-idle-timeout=-1s"}, "must not be negative"},
		{[]string{"-addr", "nonsense"}, `listen on -addr "nonsense"`},
		{[]string{"-nosuchflag"}, "bad flags"},
	} {
		err := run(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want one line with %q", tc.args, err, tc.want)
		}
	}
}

// TestServesHelloAndStopsOnSIGTERM: the hello answer on any path, a
// WebSocket upgrade on /ws, and a clean stop on SIGTERM.
func TestServesHelloAndStopsOnSIGTERM(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	done := make(chan error, 1)
	go func() { done <- run([]string{"-addr", addr, "-loops", "1"}) }()
	var body string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/any/path")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		if resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
		}
		break
	}
	if body != "Hello, Go!" {
		t.Fatalf("body %q, want Hello, Go!", body)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	head := make([]byte, 12)
	if _, err := io.ReadFull(c, head); err != nil || string(head) != "HTTP/1.1 101" {
		t.Errorf("upgrade on /ws: %q %v", head, err)
	}
	c.Close()
	// The answers above came after run's signal.Notify (it is set before
	// Serve): SIGTERM reaches run, not the test binary's default handler.
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return within 10 s of SIGTERM")
	}
}

// TestHTTP3: with -http3, HTTPS answers with Alt-Svc naming the port, and
// gust load's HTTP/3 gets the hello answer over UDP on that port.
func TestHTTP3(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	done := make(chan error, 1)
	go func() { done <- run([]string{"-addr", addr, "-loops", "1", "-http3"}) }()
	cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: time.Second}
	var alt string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := cl.Get("https://" + addr + "/")
		if err != nil {
			continue
		}
		resp.Body.Close()
		alt = resp.Header.Get("Alt-Svc")
		break
	}
	_, port, _ := net.SplitHostPort(addr)
	if want := `h3=":` + port + `"; ma=86400`; alt != want {
		t.Fatalf("Alt-Svc %q, want %q", alt, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := load.Run(ctx, load.Config{URL: "https://" + addr + "/", HTTP3: true, TLS: load.TLSConfig{Insecure: true},
		Connections: 1, Requests: 50, Loops: 1, Timeout: 5 * time.Second})
	if err != nil {
		t.Errorf("HTTP/3: %v", err)
	} else if res.Status[200] != 50 {
		t.Errorf("HTTP/3: status %v, errors %v; want 50 answered 200", res.Status, res.Errors)
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return within 10 s of SIGTERM")
	}
}
