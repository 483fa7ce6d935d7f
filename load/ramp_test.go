//go:build linux

package load

import (
	"bufio"
	"context"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// answerAll answers every request on c with a minimal 200.
func answerAll(c net.Conn) {
	serveRequests(c, func(w *bufio.Writer, n, batch int) bool {
		w.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return true
	})
}

func TestConnectRateSpacesTheConnects(t *testing.T) {
	var mu sync.Mutex
	var accepted []time.Time
	srv := newRawServer(t, func(c net.Conn) {
		mu.Lock()
		accepted = append(accepted, time.Now())
		mu.Unlock()
		answerAll(c)
	})
	const conns, rate = 60, 100.0 // 0.59 s from the first connect to the last
	res, err := Run(context.Background(), Config{URL: srv.url(), Connections: conns, ConnectRate: rate, Loops: 2, Duration: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The first is Run's start-up probe.
	if len(accepted) != conns+1 || res.Connects != conns {
		t.Fatalf("%d accepted, %d connects counted; want the probe and %d", len(accepted), res.Connects, conns)
	}
	accepted = accepted[1:]
	first, last := accepted[0], accepted[0]
	for _, at := range accepted {
		if at.Before(first) {
			first = at
		}
		if at.After(last) {
			last = at
		}
	}
	// Pacing spreads the connects over want; unpaced, all 60 come within a
	// few milliseconds. The accepts are timed on the server's side, where
	// the first may be taken late (CI saw 566 ms for 580 under -race): the
	// lower bound allows a fifth of want for that, the upper one is
	// generous for a busy machine.
	want := time.Duration(float64(conns-2) / rate * float64(time.Second)) // two loops start together
	if got := last.Sub(first); got < want*4/5 || got > 3*want {
		t.Errorf("connects spread over %v, want about %v", got, want)
	}
}

func TestSourceAddrsBindEachConnectionInTurn(t *testing.T) {
	var mu sync.Mutex
	from := map[string]int{}
	srv := newRawServer(t, func(c net.Conn) {
		host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
		mu.Lock()
		from[host]++
		mu.Unlock()
		answerAll(c)
	})
	addrs := []netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3"), netip.MustParseAddr("127.0.0.4"), netip.MustParseAddr("127.0.0.5")}
	_, err := Run(context.Background(), Config{URL: srv.url(), Connections: 40, SourceAddrs: addrs, Loops: 2, Requests: 200})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range addrs {
		if from[a.String()] != 10 {
			t.Errorf("%d connections from %s, want 10 (all: %v)", from[a.String()], a, from)
		}
	}
}

func TestSourceAddrsOfAnotherFamilyAreRefused(t *testing.T) {
	srv := newRawServer(t, answerAll)
	_, err := Run(context.Background(), Config{URL: srv.url(), Requests: 1, SourceAddrs: []netip.Addr{netip.MustParseAddr("::1")}})
	if err == nil {
		t.Fatal("an IPv6 source for an IPv4 target was accepted")
	}
}
