package quic

import (
	"crypto/tls"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"
	"unsafe"
)

// idleServerConns makes n server Conns that each completed a handshake
// and one request and response on a bidirectional stream, then sat quiet
// for idle; the clients are closed and dropped, so that what stays live
// is the servers' state.
func idleServerConns(tb *testing.T, n int, idle time.Duration) []*Conn {
	pairCertOnce.Do(func() { pairCert, pairPool = selfSigned(tb) })
	servers := make([]*Conn, 0, n)
	ccfg := Config{TLSConfig: &tls.Config{ServerName: "localhost", RootCAs: pairPool, NextProtos: []string{"gust-test"}}}
	scfg := Config{TLSConfig: &tls.Config{Certificates: []tls.Certificate{pairCert}, NextProtos: []string{"gust-test"},
		MinVersion: tls.VersionTLS13, SessionTicketsDisabled: true}}
	for range n {
		p := &connPair{t: tb, now: time.Unix(1_700_000_000, 0), buf: make([]byte, 0, 2048), cfg: scfg}
		c, err := NewClientConn(&ccfg, p.now)
		if err != nil {
			tb.Fatal(err)
		}
		p.client = c
		p.handshake()
		id, err := c.OpenStream(false)
		if err != nil {
			tb.Fatal(err)
		}
		c.Write(id, []byte("GET / request"))
		c.CloseWrite(id)
		buf := make([]byte, 256)
		answered, done := false, false
		p.run("request", func() bool {
			for ev := p.server.NextEvent(); ev.Kind != EventNone; ev = p.server.NextEvent() {
			}
			for ev := c.NextEvent(); ev.Kind != EventNone; ev = c.NextEvent() {
			}
			if !answered {
				if _, fin, _ := p.server.Read(id, buf); fin {
					p.server.Write(id, []byte("200 OK response"))
					p.server.CloseWrite(id)
					answered = true
				}
			}
			if answered && !done {
				_, done, _ = c.Read(id, buf)
			}
			return done && p.server.SendsAcked() && c.SendsAcked()
		})
		p.quiet(idle)
		p.flush()
		if c.tls != nil {
			c.tls.Close()
		}
		servers = append(servers, p.server)
	}
	return servers
}

// TestIdleConnHeap measures the heap an idle server connection holds
// (QUIC_IDLE_N connections, 300 by default; QUIC_IDLE_PROFILE names a
// heap profile to write) and bounds it.
func TestIdleConnHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("makes many connections")
	}
	n := 300
	if os.Getenv("QUIC_IDLE_N") != "" {
		var err error
		if n, err = strconv.Atoi(os.Getenv("QUIC_IDLE_N")); err != nil {
			t.Fatal(err)
		}
	}
	prof := os.Getenv("QUIC_IDLE_PROFILE")
	if prof != "" {
		defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
		runtime.MemProfileRate = 1
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	servers := idleServerConns(t, n, 2*time.Second)
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(n)
	t.Logf("%d idle connections: %d heap bytes each", n, per)
	// About 4 KB: the Conn (3 KB), its stream, keys, connection IDs and
	// TLS state. The bound catches a connection that keeps its cipher
	// objects or its buffers (12.6 KB before they were let go).
	if per > 6000 {
		t.Errorf("an idle connection holds %d heap bytes, want at most 6000", per)
	}
	if prof != "" {
		w, err := os.Create(prof)
		if err != nil {
			t.Fatal(err)
		}
		pprof.Lookup("heap").WriteTo(w, 0)
		w.Close()
	}
	for _, s := range servers {
		if s.Closed() {
			t.Fatalf("a connection closed: %v", s.Err())
		}
	}
	runtime.KeepAlive(servers)
}

// quiet moves p's clock past every timer for d, exchanging what is due.
func (p *connPair) quiet(d time.Duration) {
	end := p.now.Add(d)
	for p.now.Before(end) {
		p.flush()
		next := earliest(p.client.NextTimeout(), p.server.NextTimeout())
		if next.IsZero() || next.After(end) {
			p.now = end
		} else if next.After(p.now) {
			p.now = next
		}
		p.client.OnTimeout(p.now)
		p.server.OnTimeout(p.now)
	}
}

func TestConnIdleReleasesCiphers(t *testing.T) {
	p := newConnPair(t, nil)
	p.handshake()
	exchangeStreams(t, p, 2, 3000)
	p.quiet(2 * idleReleaseAfter)
	for _, c := range []*Conn{p.client, p.server} {
		sp := c.spaces[spaceApp]
		if sp.read.c != nil || sp.write.c != nil || c.keys.next.c != nil {
			t.Fatalf("client %v: cipher objects kept after %v quiet", c.isClient, 2*idleReleaseAfter)
		}
	}
	t.Run("streams work after the release", func(t *testing.T) { exchangeStreams(t, p, 2, 3000) })
	t.Run("keys update after the release", func(t *testing.T) {
		p.quiet(2 * idleReleaseAfter)
		if err := p.client.UpdateKeys(); err != nil {
			t.Fatal(err)
		}
		exchangeStreams(t, p, 1, 100)
		if p.client.KeyPhase() != p.server.KeyPhase() || !p.server.KeyPhase() {
			t.Fatalf("key phases: client %v, server %v, want both true", p.client.KeyPhase(), p.server.KeyPhase())
		}
		p.quiet(2 * idleReleaseAfter)
		if p.server.keys.prev != nil {
			t.Error("the previous phase's read keys kept after a quiet spell")
		}
		exchangeStreams(t, p, 1, 100)
	})
}

// TestConnFitsItsSizeClass: every connection, idle ones too, holds a
// Conn; with the allocator's 8-byte header for an object of pointers
// past 512 bytes, at 1,784 bytes it fills the class of 1,792, and a
// field more moves it to 2,048 (the long header spaces, the end state
// and the shared Config live apart for that).
func TestConnFitsItsSizeClass(t *testing.T) {
	if got := unsafe.Sizeof(Conn{}); got > 1792-8 {
		t.Errorf("Conn is %d bytes: with its 8-byte header, past its 1,792-byte size class", got)
	}
}
