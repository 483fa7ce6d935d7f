package server

import (
	"context"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/datagram"
	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// runH3Load runs gust load over HTTP/3 against addr: conns connections,
// n requests.
func runH3Load(t *testing.T, addr netip.AddrPort, conns, n int) *result.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := load.Run(ctx, load.Config{URL: "https://" + addr.String() + "/", HTTP3: true,
		TLS: load.TLSConfig{Insecure: true}, Connections: conns, Streams: 4, Requests: int64(n), Loops: 1,
		Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status[200] != int64(n) || res.ErrorCount() != 0 {
		t.Fatalf("status %v, errors %v; want %d answered", res.Status, res.Errors, n)
	}
	if res.QUIC == nil {
		t.Fatal("no QUIC section")
	}
	return res
}

// TestHTTP3ECN: gust load and gust/server mark their packets ECT(0) and
// count each other's marks, so that every connection's path validates
// ECN (RFC 9000 section 13.4.2) and each side sees the other's packets
// marked.
func TestHTTP3ECN(t *testing.T) {
	_, addr := startH3(t, Config{Mode: Inline})
	res := runH3Load(t, addr.AddrPort(), 4, 2000)
	q := res.QUIC
	if !q.ECN {
		t.Skip("this kernel does not hand ECN codepoints to readers")
	}
	t.Logf("ECN validated on %d connections, %d of the server's packets came marked", q.ECNValidated, q.ECNMarked)
	// A server whose validation failed would mark only its first ten
	// packets a connection: more than that shows it validated too.
	if q.ECNValidated != 4 || q.ECNFailed != 0 || q.ECNCE != 0 || q.ECNMarked <= 4*10 {
		t.Fatalf("ECN validated on %d, failed on %d, %d CE, %d marked packets from the server; want 4, 0, 0, above 40",
			q.ECNValidated, q.ECNFailed, q.ECNCE, q.ECNMarked)
	}
}

// TestHTTP3ECNCongestionMarks: a relay plays a router whose queue fills
// and marks one ECT(0) datagram in ten from the client CE instead of
// dropping it. The server counts the marks and reports them; the client
// treats them as congestion (its window shrinks) with no packet lost, and
// every request is answered.
func TestHTTP3ECNCongestionMarks(t *testing.T) {
	_, addr := startH3(t, Config{Mode: Inline})
	ap := addr.AddrPort()
	relay := startMarkingRelay(t, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), 10)
	res := runH3Load(t, relay.addr, 2, 2000)
	q := res.QUIC
	if !q.ECN {
		t.Skip("this kernel does not hand ECN codepoints to readers")
	}
	if relay.marked.Load() == 0 {
		t.Fatal("the relay saw no ECT(0) datagram to mark")
	}
	if q.ECNValidated != 2 || q.ECNCE == 0 || q.CongestionEvents == 0 {
		t.Fatalf("ECN validated on %d, %d CE marks reported (relay marked %d), %d congestion events; want 2 and both above 0",
			q.ECNValidated, q.ECNCE, relay.marked.Load(), q.CongestionEvents)
	}
	if q.ECNCE > relay.marked.Load() {
		t.Fatalf("%d CE marks reported, more than the relay's %d", q.ECNCE, relay.marked.Load())
	}
}

// markingRelay forwards datagrams between clients and a server, a socket
// per client toward the server, keeping their ECN codepoints, except that
// every every-th ECT(0) datagram from a client arrives CE.
type markingRelay struct {
	addr   netip.AddrPort
	marked atomic.Int64
}

func startMarkingRelay(t *testing.T, server netip.AddrPort, every int) *markingRelay {
	t.Helper()
	front, err := datagram.Open(netip.MustParseAddrPort("127.0.0.1:0"), datagram.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := datagram.EnableECN(front.FD()); err != nil {
		front.Close()
		t.Skipf("no ECN codepoints for readers: %v", err)
	}
	r := &markingRelay{}
	r.addr, _ = front.LocalAddr()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	backs := map[netip.AddrPort]*datagram.Socket{}
	// readEach reads batches from in until stop, handing each to each.
	readEach := func(in *datagram.Socket, each func(rb *datagram.Batch, n int)) {
		defer wg.Done()
		rb := datagram.NewBatch(16, 2048)
		for {
			select {
			case <-stop:
				return
			default:
			}
			n, err := in.ReadBatch(rb)
			if err != nil {
				return
			}
			if n == 0 {
				time.Sleep(200 * time.Microsecond) // an empty socket: look again until stopped
				continue
			}
			each(rb, n)
		}
	}
	// forward sends datagram i of rb from out to dst, with the codepoint
	// mark, through wb.
	forward := func(out *datagram.Socket, wb, rb *datagram.Batch, i int, dst netip.AddrPort, mark uint8) {
		d := rb.Datagram(i)
		copy(wb.Buffer(0), d)
		wb.Set(0, len(d), dst)
		wb.SetECN(0, mark)
		out.WriteBatch(wb, 1)
	}
	var ect0 int
	toServer := func(m uint8) uint8 {
		if m != 2 {
			return m
		}
		ect0++
		if ect0%every == 0 {
			r.marked.Add(1)
			return 3
		}
		return m
	}
	// The front socket's reader finds the client's back socket (made on
	// its first datagram) by the client's address; each back socket's
	// reader sends the server's answers on to its client as they came.
	wg.Add(1)
	wb := datagram.NewBatch(1, 2048)
	go readEach(front, func(rb *datagram.Batch, n int) {
		for i := range n {
			client := rb.Addr(i)
			mu.Lock()
			back := backs[client]
			if back == nil {
				var err error
				if back, err = datagram.Open(netip.MustParseAddrPort("127.0.0.1:0"), datagram.Options{}); err != nil {
					mu.Unlock()
					continue
				}
				datagram.EnableECN(back.FD())
				backs[client] = back
				wg.Add(1)
				bwb := datagram.NewBatch(1, 2048)
				go readEach(back, func(rb *datagram.Batch, n int) {
					for i := range n {
						forward(front, bwb, rb, i, client, rb.ECN(i))
					}
				})
			}
			mu.Unlock()
			forward(back, wb, rb, i, server, toServer(rb.ECN(i)))
		}
	})
	t.Cleanup(func() {
		close(stop)
		wg.Wait()
		front.Close()
		for _, b := range backs {
			b.Close()
		}
	})
	return r
}
