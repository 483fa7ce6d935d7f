//go:build linux

package transport

import (
	"crypto/tls"
	"io"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"
)

// idleConns is how many idle keep-alive connections TestTLSIdleConnectionBytes keeps.
const idleConns = 2000

// TestTLSIdleConnectionBytes measures the heap an idle keep-alive TLS
// connection keeps after one request (HeapAlloc over idleConns connections,
// the other side's objects dropped before measuring), for our server, our
// client, and crypto/tls's server over net.Conn (net/http's TLS layer,
// without its bufio buffers and goroutine). It checks that ours keep no
// record buffer and reports how much is crypto/tls's own.
func TestTLSIdleConnectionBytes(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("2000 handshakes: not under -short or -race")
	}
	ln := newListener(t)
	req := []byte("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
	resp := make([]byte, 100)
	// others are the other side's goroutines, ended before measuring.
	var others sync.WaitGroup
	// openServer makes one idle server connection of ours on cfg.
	openServer := func(cfg *tls.Config) (any, *tls.Conn, func()) {
		fd, peer := ln.pair(t)
		s := NewServerTLS(NewPlain(fd), cfg)
		hs := handshake(s, 10*time.Second)
		client := tls.Client(peer, clientConfig(t, tls.VersionTLS13))
		others.Add(1)
		go func() { defer others.Done(); client.Write(req); io.ReadFull(client, make([]byte, len(resp))) }()
		if err := <-hs; err != nil {
			t.Fatal(err)
		}
		readN(t, s, make([]byte, 4096), len(req))
		writeAll(t, s, resp)
		return s, s.tc, func() { peer.Close() }
	}
	cases := []struct {
		name string
		open func() (keep any, tc *tls.Conn, drop func())
	}{
		{"gust server", func() (any, *tls.Conn, func()) {
			return openServer(serverConfig(t, tls.VersionTLS13))
		}},
		{"gust server, crypto/tls records", func() (any, *tls.Conn, func()) {
			return openServer(cryptoTLSServerConfig(t, tls.VersionTLS13))
		}},
		{"gust client", func() (any, *tls.Conn, func()) {
			fd, peer := ln.pair(t)
			server := tls.Server(peer, cryptoTLSServerConfig(t, tls.VersionTLS13))
			others.Add(1)
			go func() { defer others.Done(); io.ReadFull(server, make([]byte, len(req))); server.Write(resp) }()
			c := NewClientTLS(NewPlain(fd), clientConfig(t, tls.VersionTLS13))
			if err := <-handshake(c, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			writeAll(t, c, req)
			readN(t, c, make([]byte, 4096), len(resp))
			return c, c.tc, func() { peer.Close() }
		}},
		{"crypto/tls server over net.Conn", func() (any, *tls.Conn, func()) {
			fd, peer := ln.pair(t)
			server := tls.Server(peer, cryptoTLSServerConfig(t, tls.VersionTLS13))
			done := make(chan error, 1)
			go func() {
				_, err := io.ReadFull(server, make([]byte, len(req)))
				if err == nil {
					_, err = server.Write(resp)
				}
				done <- err
			}()
			c := NewClientTLS(NewPlain(fd), clientConfig(t, tls.VersionTLS13))
			if err := <-handshake(c, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			writeAll(t, c, req)
			readN(t, c, make([]byte, 4096), len(resp))
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			return server, server, func() { c.Release() }
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			keep := make([]any, 0, idleConns)
			conns := make([]*tls.Conn, 0, idleConns)
			drops := make([]func(), 0, idleConns)
			before := heap()
			for i := 0; i < idleConns; i++ {
				k, c, drop := tc.open()
				keep, conns, drops = append(keep, k), append(conns, c), append(drops, drop)
			}
			for _, d := range drops {
				d()
			}
			drops = nil
			ended := make(chan struct{})
			go func() { others.Wait(); close(ended) }()
			select {
			case <-ended: // the other side's goroutines, and what they held, are gone
			case <-time.After(5 * time.Second):
				t.Fatal("the other side's goroutines did not end")
			}
			after := heap()
			var raw, hand int
			for i, c := range conns {
				raw += bufferCap(c, "rawInput")
				hand += bufferCap(c, "hand")
				if g, ok := keep[i].(*TLS); ok && (g.rc.in != nil || g.rc.out != nil || g.plain != nil) {
					t.Fatal("an idle connection holds a record buffer")
				}
				if g, ok := keep[i].(*TLS); ok && tc.name == "gust server" && (g.d == nil || g.tc != nil) {
					t.Fatal("a TLS 1.3 server connection kept crypto/tls's record layer")
				}
			}
			per := float64(after-before) / idleConns
			t.Logf("%s: %.0f heap bytes per idle TLS connection (%d connections); of it crypto/tls's input buffer %d B, handshake buffer %d B, tls.Conn struct %d B; our TLS struct %d B",
				tc.name, per, idleConns, raw/idleConns, hand/idleConns, reflect.TypeOf(tls.Conn{}).Size(), reflect.TypeOf(TLS{}).Size())
			runtime.KeepAlive(keep)
			for _, k := range keep {
				if g, ok := k.(*TLS); ok {
					g.Release()
				}
				if s, ok := k.(*tls.Conn); ok {
					s.NetConn().Close()
				}
			}
		})
	}
}

// heap returns the bytes of live heap objects after a full collection.
func heap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// bufferCap reads the capacity of one of tls.Conn's bytes.Buffer fields
// (test-only reflection: crypto/tls does not say how much it keeps), 0
// for a connection that dropped its tls.Conn (direct13).
func bufferCap(c *tls.Conn, field string) int {
	if c == nil {
		return 0
	}
	return reflect.ValueOf(c).Elem().FieldByName(field).FieldByName("buf").Cap()
}
