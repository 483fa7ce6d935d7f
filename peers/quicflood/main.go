// Command quicflood sends a QUIC server what an attacker would, for
// benchmarks of what the server's other clients feel, for -duration.
// Loopback only: -addr must be a loopback address.
//
// Two kinds are datagrams, at -rate a second from -ports source ports:
// real clients' first datagrams (an Initial each, padded to 1,200 bytes,
// with the start of a ClientHello, which its post-quantum key share makes
// two datagrams long), never followed up (-kind initial), or random
// bytes shaped as Initials (-kind garbage). It prints what it sent.
//
// Four kinds are HTTP/3 connections that misbehave: -conns of them at a
// time, each replaced by a new one once the server ends it, at most -rate
// new ones a second. -kind streams opens request streams past the
// server's MAX_STREAMS; flowcontrol sends stream data past a stream's or
// the connection's window; qpack sends field sections that decode past
// the server's limit, then an insert on its QPACK encoder stream; noack
// acknowledges nothing the server sends (half the connections stop after
// their first flight, half after the handshake and one request); sparse
// stays within the windows but sends only each stream window's last byte,
// and holds the connection. It
// prints how the server ended the connections (the close codes), how it
// answered their streams, and for noack the most the server sent.
//
//	quicflood -addr 127.0.0.1:8443 -rate 20000 -duration 10s -ports 1000
//	quicflood -addr 127.0.0.1:8443 -kind streams -conns 100 -rate 200 -duration 10s
//
// # Files
//
//   - main.go: flags, the datagram kinds
//   - conns.go: a connection driven by hand, the workers that keep -conns open, the tally printed
//   - kinds.go: the connection kinds: streams, flowcontrol, qpack, noack, sparse
package main

import (
	"crypto/rand"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gust-http/gust/internal/quic"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8443", "the server's UDP address (loopback)")
	rate := flag.Int("rate", 10000, "datagrams a second (initial, garbage) or new connections a second (the connection kinds)")
	dur := flag.Duration("duration", 10*time.Second, "how long to send")
	ports := flag.Int("ports", 1000, "source ports (sockets) to send from, in turn")
	kind := flag.String("kind", "initial", "initial (real clients' first datagrams), garbage (random bytes in an Initial's shape), "+
		"or connections that misbehave: streams, flowcontrol, qpack, noack, sparse")
	conns := flag.Int("conns", 100, "misbehaving connections at a time (the connection kinds)")
	flag.Parse()
	if err := run(*addr, *rate, *dur, *ports, *conns, *kind); err != nil {
		fmt.Fprintln(os.Stderr, "quicflood:", err)
		os.Exit(1)
	}
}

func run(addr string, rate int, dur time.Duration, ports, conns int, kind string) error {
	to, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return err
	}
	if !to.IP.IsLoopback() {
		return fmt.Errorf("-addr %s is not a loopback address", addr)
	}
	if rate <= 0 || ports <= 0 || conns <= 0 || dur <= 0 {
		return fmt.Errorf("-rate, -ports, -conns and -duration must be positive")
	}
	if kind != "initial" && kind != "garbage" {
		return runConns(to, kind, conns, rate, dur)
	}
	socks := make([]*net.UDPConn, ports)
	for i := range socks {
		if socks[i], err = net.DialUDP("udp", nil, to); err != nil {
			return err
		}
		defer socks[i].Close()
	}
	// A pool of datagrams made up front, so that making them does not
	// limit the rate: 256 distinct ones, sent in turn.
	pool := make([][]byte, 256)
	for i := range pool {
		if pool[i], err = datagram(kind); err != nil {
			return err
		}
	}
	start := time.Now()
	sent := 0
	for time.Since(start) < dur {
		due := int(time.Since(start).Seconds() * float64(rate))
		for ; sent < due; sent++ {
			socks[sent%ports].Write(pool[sent%len(pool)])
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Printf("sent %d %s datagrams from %d ports in %v\n", sent, kind, ports, time.Since(start).Round(time.Millisecond))
	return nil
}

// datagram returns one datagram of the kind asked.
func datagram(kind string) ([]byte, error) {
	if kind == "garbage" {
		g := make([]byte, 1200)
		rand.Read(g)
		g[0] = 0xc0 // a long header, type Initial, version 1
		copy(g[1:5], []byte{0, 0, 0, 1})
		g[5] = 8
		return g, nil
	}
	qc, err := quic.NewClientConn(&quic.Config{TLSConfig: &tls.Config{ServerName: "localhost", InsecureSkipVerify: true,
		NextProtos: []string{"h3"}, MinVersion: tls.VersionTLS13}}, time.Now())
	if err != nil {
		return nil, err
	}
	d, ok := qc.AppendDatagram(nil, time.Now())
	qc.Abandon() // only its first datagram is wanted
	if !ok {
		return nil, fmt.Errorf("no Initial from the client")
	}
	return d, nil
}
