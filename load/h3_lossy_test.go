package load

import (
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"
)

// An HTTP/3 run over a lossy, slow path: a relay between the generator
// and the test server drops 1% of the datagrams each way, at random, and
// delays the others 20 ms each way (this kernel has no tc netem, so the
// relay plays its part in user space). Every request must complete, and
// the losses must be seen and repaired: packets declared lost, on either
// side, and sent again.
func TestHTTP3OverLossyPath(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds over a 40 ms round trip")
	}
	srv, _ := startH3TestServer(t, h3TestOptions{})
	relay := startLossyRelay(t, srv.udp.LocalAddr().(*net.UDPAddr), 0.01, 20*time.Millisecond)
	cfg := h3Config("https://"+relay.String()+"/", 4, 8, 2000)
	cfg.Timeout = 20 * time.Second
	res := run(t, cfg)
	if res.Status[200] != 2000 || res.ErrorCount() != 0 {
		t.Fatalf("status %v, errors %v; want all 2000 answered over the lossy path", res.Status, res.Errors)
	}
	srv.udp.Close() // the server counts its connections' losses as it stops
	deadline := time.Now().Add(5 * time.Second)
	for srv.packetsLost() == 0 && res.QUIC.PacketsLost == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polls the server goroutine's count, with a deadline
	}
	t.Logf("client: %d packets sent, %d lost, %d PTOs, RTT p50 %dus; server: %d lost",
		res.QUIC.PacketsSent, res.QUIC.PacketsLost, res.QUIC.PTOs, res.QUIC.RTT.ValueAtQuantile(50), srv.packetsLost())
	if uint64(res.QUIC.PacketsLost)+srv.packetsLost() == 0 {
		t.Errorf("no packet declared lost on either side over a path that drops 1%% each way")
	}
	if p50 := res.QUIC.RTT.ValueAtQuantile(50); p50 < 35_000 {
		t.Errorf("smoothed RTT p50 %dus; the path delays 20 ms each way", p50)
	}
}

// startLossyRelay forwards datagrams between clients and server through
// a socket per client, dropping each with probability loss and delaying
// the rest by delay, and returns the address clients send to. It stops
// with the test.
func startLossyRelay(t *testing.T, server *net.UDPAddr, loss float64, delay time.Duration) *net.UDPAddr {
	t.Helper()
	front, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(1, 2)) // the same losses every run
	drop := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return rng.Float64() < loss
	}
	// later sends p after the delay, unless it is dropped.
	later := func(p []byte, send func([]byte)) {
		if drop() {
			return
		}
		p = append([]byte(nil), p...)
		time.AfterFunc(delay, func() { send(p) })
	}
	backs := map[string]*net.UDPConn{}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		front.Close()
		mu.Lock()
		for _, b := range backs {
			b.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 65536)
		for {
			n, client, err := front.ReadFromUDP(buf)
			if err != nil {
				return
			}
			mu.Lock()
			back := backs[client.String()]
			if back == nil {
				if back, err = net.DialUDP("udp", nil, server); err != nil {
					mu.Unlock()
					continue
				}
				backs[client.String()] = back
				wg.Add(1)
				go func() { // the server's answers to this client
					defer wg.Done()
					rbuf := make([]byte, 65536)
					for {
						n, err := back.Read(rbuf)
						if err != nil {
							return
						}
						later(rbuf[:n], func(p []byte) { front.WriteToUDP(p, client) })
					}
				}()
			}
			mu.Unlock()
			later(buf[:n], func(p []byte) { back.Write(p) })
		}
	}()
	return front.LocalAddr().(*net.UDPAddr)
}
