package peer

import (
	"net"
	"testing"
	"time"
)

func TestReusePortSharesOnePort(t *testing.T) {
	a, _, err := Listen("test", Flags{Addr: "127.0.0.1:0", ReusePort: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, _, err := Listen("test", Flags{Addr: a.Addr().String(), ReusePort: true})
	if err != nil {
		t.Fatalf("a second listener on %s with -reuseport: %v", a.Addr(), err)
	}
	defer b.Close()

	// The kernel spreads connections over both by a hash of their
	// addresses: 64 connections all landing on one is a 2^-63 chance.
	accepted := make(chan int, 128)
	for i, ln := range []net.Listener{a, b} {
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
				accepted <- i
			}
		}()
	}
	for range 64 {
		c, err := net.DialTimeout("tcp", a.Addr().String(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	var per [2]int
	timeout := time.After(10 * time.Second)
	for range 64 {
		select {
		case i := <-accepted:
			per[i]++
		case <-timeout:
			t.Fatalf("accepted %v of 64 connections in 10 s", per)
		}
	}
	if per[0] == 0 || per[1] == 0 {
		t.Errorf("connections per listener %v, want both to accept some", per)
	}
}

func TestWithoutReusePortAPortInUseIsRefused(t *testing.T) {
	a, _, err := Listen("test", Flags{Addr: "127.0.0.1:0", ReusePort: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if b, _, err := Listen("test", Flags{Addr: a.Addr().String()}); err == nil {
		b.Close()
		t.Fatalf("a second listener on %s without -reuseport succeeded", a.Addr())
	}
}
