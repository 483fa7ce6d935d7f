//go:build linux

package transport

import (
	"crypto/tls"
	"errors"
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestTLSClientHandshakeStartsWhileConnecting starts a client handshake
// right after a non-blocking connect(2), as a generator's loop may: the
// handshake's first write waits for the connection, and a refused
// connection fails the handshake with the socket's error.
func TestTLSClientHandshakeStartsWhileConnecting(t *testing.T) {
	ln := newListener(t)
	refused := newListener(t)
	refusedPort := refused.port
	refused.ln.Close()
	go func() {
		for {
			c, err := ln.ln.Accept()
			if err != nil {
				return
			}
			go tls.Server(c, serverConfig(t, tls.VersionTLS13)).Handshake()
		}
	}()
	tests := []struct {
		name    string
		port    int
		refused bool
	}{
		{"a listening port: the handshake succeeds", ln.port, false},
		{"a closed port: the handshake fails with ECONNREFUSED", refusedPort, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			err = unix.Connect(fd, &unix.SockaddrInet4{Port: tt.port, Addr: [4]byte{127, 0, 0, 1}})
			if err != nil && err != unix.EINPROGRESS {
				t.Fatal(err)
			}
			c := NewClientTLS(NewPlain(fd), clientConfig(t, tls.VersionTLS13))
			defer c.Release()
			err = <-handshake(c, 5*time.Second)
			if tt.refused != (err != nil) || (tt.refused && !errors.Is(err, unix.ECONNREFUSED)) {
				t.Fatalf("handshake error %v (refused %v)", err, tt.refused)
			}
		})
	}
}

var _ net.Conn = (*recordConn)(nil)
