package server

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawConn dials s and returns the connection with a reader for responses.
func rawConn(t testing.TB, s *Server) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

// exchange sends raw bytes on a new connection and reads one response.
func exchange(t testing.TB, s *Server, raw string) (*http.Response, string) {
	t.Helper()
	c, r := rawConn(t, s)
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("reading the response to %q: %v", raw, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// closedByPeer reports whether the server closes c within d.
func closedByPeer(c net.Conn, r *bufio.Reader, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, r)
	return err == nil || strings.Contains(err.Error(), "reset")
}

func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }

// waitFor polls cond until it holds or d passes, and reports whether it
// held: tests wait on a condition, never on a fixed sleep.
func waitFor(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}
