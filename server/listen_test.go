package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestListenRefusesAPortInUse checks that a second server on a port
// another serves fails as net.Listen would, unless both share it.
func TestListenRefusesAPortInUse(t *testing.T) {
	first := start(t, hello, Config{SharePort: true})
	addr := first.Addr().String()

	second := &Server{Handler: hello}
	err := second.Listen(addr)
	if err == nil {
		second.Close()
		t.Fatalf("a second server bound %s, which the first is serving", addr)
	}
	if !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("error %q, want it to say the address is in use", err)
	}
	if runtime.GOOS != "linux" {
		return // the port is shared only on Linux
	}
	third := &Server{Handler: hello, Config: Config{SharePort: true}}
	if err := third.Listen(addr); err != nil {
		t.Errorf("with SharePort a second server could not bind %s: %v", addr, err)
	} else {
		third.Close()
	}
}

// TestListenWithoutAHostServesIPv4AndIPv6 checks that ":port" listens on
// every address, as net.Listen does, not on IPv4 alone.
func TestListenWithoutAHostServesIPv4AndIPv6(t *testing.T) {
	s := &Server{Handler: hello, Config: Config{ErrorLog: discardLog()}}
	if err := s.Listen(":0"); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	port := strconv.Itoa(s.Addr().(*net.TCPAddr).Port)
	for _, host := range []string{"127.0.0.1", "::1"} {
		c, err := net.Dial("tcp", net.JoinHostPort(host, port))
		if err != nil {
			if host == "::1" && !hasIPv6Loopback() {
				t.Logf("no IPv6 loopback here: %v", err)
				continue
			}
			t.Errorf("dialing %s: %v", host, err)
			continue
		}
		c.Close()
	}
}

func hasIPv6Loopback() bool {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// TestServeAfterShutdownReturnsErrServerClosed: a Shutdown that comes
// between Listen and Serve makes Serve return at once, as in net/http.
func TestServeAfterShutdownReturnsErrServerClosed(t *testing.T) {
	s := &Server{Handler: hello}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(); err != ErrServerClosed {
		t.Errorf("Serve after Shutdown = %v, want ErrServerClosed", err)
	}
}

// TestAcceptOneSpreadsConnections serves through one acceptor handing
// connections to four loops in turn, and checks every loop got some.
func TestAcceptOneSpreadsConnections(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("acceptors are a Linux engine choice")
	}
	s := start(t, hello, Config{Loops: 4, Acceptor: AcceptOne})
	for i := 0; i < 8; i++ {
		c, r := rawConn(t, s) // kept open by the test's cleanup
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(r, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	if got := s.Stats().OpenConns; got != 8 {
		t.Errorf("%d open connections, want 8", got)
	}
	perLoop := loopConnCounts(s)
	for i, n := range perLoop {
		if n != 2 {
			t.Errorf("loop %d has %d connections, want 2 each (%v)", i, n, perLoop)
		}
	}
}
