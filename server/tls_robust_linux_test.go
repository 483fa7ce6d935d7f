//go:build linux

package server

import (
	"bufio"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// halfClientHello starts a 512-byte handshake record and stops 6 bytes
// into it: a handshake that waits for the rest.
var halfClientHello = []byte{0x16, 3, 1, 2, 0, 1, 0, 1, 0xfc, 3, 3}

// servedOverTLS checks that s still answers a new TLS client promptly.
func servedOverTLS(t *testing.T, s *Server, within time.Duration) {
	t.Helper()
	start := time.Now()
	c := dialTLS(t, s, clientTLS(0))
	io.WriteString(c, "GET /alive HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a new client is not served: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if string(b) != "/alive 0 -" {
		t.Fatalf("a new client got %q", b)
	}
	if d := time.Since(start); d > within {
		t.Fatalf("a new client was served in %v, want under %v", d, within)
	}
	c.Close()
}

// openConns waits up to d for s's open connections to fall to want.
func openConns(s *Server, want int64, d time.Duration) int64 {
	end := time.Now().Add(d)
	for {
		n := s.Stats().OpenConns
		if n <= want || time.Now().After(end) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// unreadByServer is how many bytes that the client c sent wait unread in
// the server's socket (the rx_queue of c's peer in /proc/net/tcp), or -1
// while that socket is not listed.
func unreadByServer(t *testing.T, c net.Conn) int {
	t.Helper()
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	port := func(addr string) int {
		_, p, _ := strings.Cut(addr, ":")
		n, _ := strconv.ParseInt(p, 16, 32)
		return int(n)
	}
	local, remote := c.LocalAddr().(*net.TCPAddr).Port, c.RemoteAddr().(*net.TCPAddr).Port
	for _, line := range strings.Split(string(b), "\n") {
		// sl local_address rem_address st tx_queue:rx_queue ...
		if f := strings.Fields(line); len(f) > 4 && port(f[1]) == remote && port(f[2]) == local {
			_, rx, _ := strings.Cut(f[4], ":")
			n, _ := strconv.ParseInt(rx, 16, 64)
			return int(n)
		}
	}
	return -1
}

// TestTLSClientsThatDoNotSpeakTLS: plain HTTP gets net/http's 400 and a
// close; garbage and broken or vanishing handshakes are closed; and the
// server serves a new client after each, and leaks no connection.
func TestTLSClientsThatDoNotSpeakTLS(t *testing.T) {
	tests := []struct {
		name  string
		send  []byte
		reset bool   // the client then vanishes with a reset
		want  string // what the client reads before the server's close ("alert": a TLS alert)
	}{
		{"plain HTTP gets a 400 that says so", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), false, plainToTLS},
		{"plain HTTP with a body gets the 400 too", []byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"), false, plainToTLS},
		{"garbage that is not a TLS record is told so and closed", []byte("\x00\x01\x02garbage garbage"), false, plainToTLS},
		{"a handshake record full of garbage is closed", append([]byte{0x16, 3, 1, 0, 8}, "garbage!"...), false, "alert"},
		{"a client that closes mid-handshake is forgotten", halfClientHello, false, ""},
		{"a client that resets mid-handshake is forgotten", halfClientHello, true, ""},
	}
	for _, mode := range []Mode{Inline, Pooled} {
		s := startTLS(t, tlsEcho, Config{Mode: mode, ErrorLog: discardLog()})
		for _, tt := range tests {
			t.Run(tt.name+" ("+mode.String()+")", func(t *testing.T) {
				c, err := net.Dial("tcp", s.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				c.Write(tt.send)
				if tt.send[0] == 0x16 && tt.want == "" && len(tt.send) == len(halfClientHello) {
					// The handshake is waiting for the rest: it read what was sent.
					if !waitFor(5*time.Second, func() bool { return unreadByServer(t, c) == 0 }) {
						t.Fatalf("the server's socket still holds %d bytes of the half ClientHello", unreadByServer(t, c))
					}
					if tt.reset {
						c.(*net.TCPConn).SetLinger(0)
					}
					c.Close()
				} else {
					got, err := io.ReadAll(c)
					if err != nil {
						t.Fatalf("read %q, then %v; want the server's close", got, err)
					}
					if tt.want == "alert" && len(got) == 7 && got[0] == 21 {
						got = []byte(tt.want) // crypto/tls says what it refused
					}
					if string(got) != tt.want {
						t.Fatalf("read %q, want %q", got, tt.want)
					}
				}
				c.Close() // a lingering close waits for it
				servedOverTLS(t, s, 2*time.Second)
				if n := openConns(s, 0, 3*time.Second); n != 0 {
					t.Fatalf("%d connections still open", n)
				}
			})
		}
	}
}

// clientHello returns the first flight of a real TLS client.
func clientHello(t *testing.T) []byte {
	t.Helper()
	a, b := net.Pipe()
	defer a.Close()
	go tls.Client(b, clientTLS(0)).Handshake()
	defer b.Close()
	buf := make([]byte, 16<<10)
	n, err := io.ReadAtLeast(a, buf, 5)
	if err != nil {
		t.Fatal(err)
	}
	for want := 5 + (int(buf[3])<<8 | int(buf[4])); n < want; {
		m, err := a.Read(buf[n:])
		if err != nil {
			t.Fatal(err)
		}
		n += m
	}
	return buf[:n]
}

// TestTLSClientsThatVanishAfterTheServerAnswers: a client sends a whole
// ClientHello and vanishes (closes or resets) once the server's first
// flight arrives, or without reading it: the handshake fails, the
// connection is closed, and the server serves the next client.
func TestTLSClientsThatVanishAfterTheServerAnswers(t *testing.T) {
	hello := clientHello(t)
	s := startTLS(t, tlsEcho, Config{ErrorLog: discardLog()})
	for _, tt := range []struct {
		name        string
		read, reset bool
	}{
		{"closes after reading the server's flight", true, false},
		{"resets after reading the server's flight", true, true},
		{"closes without reading it", false, false},
		{"resets without reading it", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 {
				c, err := net.Dial("tcp", s.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				c.SetDeadline(time.Now().Add(5 * time.Second))
				c.Write(hello)
				if tt.read {
					if _, err := c.Read(make([]byte, 100)); err != nil {
						t.Fatalf("the server's first flight: %v", err)
					}
				}
				if tt.reset {
					c.(*net.TCPConn).SetLinger(0)
				}
				c.Close()
			}
			servedOverTLS(t, s, 2*time.Second)
			if n := openConns(s, 0, 3*time.Second); n != 0 {
				t.Fatalf("%d connections still open", n)
			}
		})
	}
}

// TestTLSStalledHandshakesDoNotStopTheServer opens many connections that
// send half a ClientHello and stall: new clients are served meanwhile, and
// ReadHeaderTimeout closes the stalled ones.
func TestTLSStalledHandshakesDoNotStopTheServer(t *testing.T) {
	n := 5000
	var lim unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_NOFILE, &lim)
	// Each stalled handshake costs 3 descriptors here: the client's, the
	// server's and the handshake's duplicate.
	if room := int(lim.Cur)/3 - 100; room < n {
		n = room
	}
	if testing.Short() {
		n = min(n, 500)
	}
	t.Logf("%d stalled handshakes (descriptor limit %d)", n, lim.Cur)
	const timeout = 4 * time.Second
	// Every stalled handshake ends in a logged timeout: thousands of lines
	// that would bury a failure in the output.
	s := startTLS(t, tlsEcho, Config{ReadHeaderTimeout: timeout, Loops: 2, ErrorLog: discardLog()})
	start := time.Now()
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatalf("after %d connections: %v", len(conns), err)
		}
		conns = append(conns, c)
		c.Write(halfClientHello)
	}
	servedOverTLS(t, s, 2*time.Second)
	// Unless opening them took so long (the race detector, a busy
	// machine) that the first ones reached their timeout, all are open.
	if open := s.Stats().OpenConns; time.Since(start) < timeout-time.Second && open < int64(n)*9/10 {
		t.Fatalf("%d connections open, want the %d stalled ones", open, n)
	}
	// Past ReadHeaderTimeout, every stalled handshake is closed.
	if left := openConns(s, 0, 10*time.Second); left != 0 {
		t.Fatalf("%d stalled connections still open past ReadHeaderTimeout", left)
	}
	conns[0].SetReadDeadline(time.Now().Add(time.Second))
	if _, err := conns[0].Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Fatalf("a stalled client reads %v, want the server's close", err)
	}
	servedOverTLS(t, s, 2*time.Second)
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestTLSClosesWithCloseNotify: a connection the server closes ends with a
// close_notify alert, visible as an alert record in TLS 1.2: after a
// response with Connection: close, with a lingering close (bytes followed
// it), and at the idle timeout.
func TestTLSClosesWithCloseNotify(t *testing.T) {
	closeReq := "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
	cases := []struct{ name, send string }{
		{"Connection: close", closeReq},
		{"a lingering close", closeReq + "GET /more HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"the idle timeout", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},
	}
	for _, mode := range []Mode{Inline, Pooled} {
		for _, tc := range cases {
			t.Run(mode.String()+", "+tc.name, func(t *testing.T) {
				s := startTLS(t, tlsEcho, Config{Mode: mode, IdleTimeout: 300 * time.Millisecond})
				raw, err := net.Dial("tcp", s.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				rec := &recordingConn{Conn: raw}
				c := tls.Client(rec, clientTLS(tls.VersionTLS12))
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				io.WriteString(c, tc.send)
				b, err := io.ReadAll(c)
				if err != nil {
					t.Fatalf("read %q, then %v", b, err)
				}
				// The last record the server sent: type 21 (alert), encrypted.
				if last := rec.lastRecordType(); last != 21 {
					t.Fatalf("the last record's type is %d, want 21 (alert: close_notify)", last)
				}
			})
		}
	}
}

// recordingConn keeps what a TLS client reads, to find its records.
type recordingConn struct {
	net.Conn
	got []byte
}

func (r *recordingConn) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	r.got = append(r.got, p[:n]...)
	return n, err
}

// lastRecordType walks the records read and returns the last one's type.
func (r *recordingConn) lastRecordType() byte {
	var typ byte
	for b := r.got; len(b) >= 5; {
		typ = b[0]
		l := 5 + (int(b[3])<<8 | int(b[4]))
		if l > len(b) {
			break
		}
		b = b[l:]
	}
	return typ
}

// TestTLSHandshakeErrorsAreLogged: a failed handshake is logged with the
// client's address, as net/http does; a client that closes before saying
// anything (a TCP health check) is not.
func TestTLSHandshakeErrorsAreLogged(t *testing.T) {
	var logged logBuffer
	s := startTLS(t, tlsEcho, Config{Mode: Inline, ErrorLog: log.New(&logged, "", 0)})
	silent, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	silent.Close()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write(append([]byte{0x16, 3, 1, 0, 8}, "garbage!"...))
	io.ReadAll(c) // the alert, then the server's close
	if n := openConns(s, 0, 3*time.Second); n != 0 {
		t.Fatalf("%d connections still open", n)
	}
	got := logged.String()
	want := "gust/server: TLS handshake error from " + c.LocalAddr().String() + ": "
	if !strings.Contains(got, want) {
		t.Errorf("log %q, want a line starting %q", got, want)
	}
	if n := strings.Count(got, "TLS handshake error"); n != 1 {
		t.Errorf("log %q: %d handshake errors, want 1 (the silent client is not one)", got, n)
	}
}
