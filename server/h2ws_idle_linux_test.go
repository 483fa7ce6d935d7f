//go:build linux

package server

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/internal/http2"
	"github.com/gust-http/gust/internal/websocket"
)

// h2wsIdleClientEnv makes the test binary a client that holds idle
// WebSockets over h2c (TestWebSocketOverH2IdleClient): the address, how
// many connections, and how many streams on each.
const h2wsIdleClientEnv = "GUST_H2WS_IDLE_CLIENT"

// TestWebSocketOverH2IdleStreamCost measures what an idle RFC 8441
// WebSocket stream costs the server: a child process opens conns h2c
// connections and perConn WebSocket streams on each (one echo per stream,
// so each has fed its engine once) and holds them; this process's live
// heap (after a GC) and RSS are read before and after. The clients live
// in the child, so the numbers are the server's alone. Set
// GUST_H2WS_IDLE=CONNS,PER_CONN for another shape (perConn at most
// MaxConcurrentStreams, 100 by default).
func TestWebSocketOverH2IdleStreamCost(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a measurement: not under -short or -race")
	}
	conns, perConn := 20, 100
	if spec := os.Getenv("GUST_H2WS_IDLE"); spec != "" {
		a, b, _ := strings.Cut(spec, ",")
		conns, _ = strconv.Atoi(a)
		perConn, _ = strconv.Atoi(b)
		if conns <= 0 || perConn <= 0 || perConn > 100 {
			t.Fatalf("GUST_H2WS_IDLE=%q: want CONNS,PER_CONN with PER_CONN at most 100", spec)
		}
	}
	n := conns * perConn
	for _, mode := range []Mode{Auto, Inline} {
		t.Run(mode.String(), func(t *testing.T) {
			s := serveForTest(t, &Server{Handler: h2wsSetups(wsEcho())[0].h, Config: h2wsConfig(mode, false)})
			heap0, rss0 := memNow(t)
			defer holdIdleClients(t, "TestWebSocketOverH2IdleClient",
				fmt.Sprintf("%s=%s,%d,%d", h2wsIdleClientEnv, s.Addr(), conns, perConn))()
			time.Sleep(500 * time.Millisecond) // a measurement's quiet time before the reading, not a wait for an event
			heap1, rss1 := memNow(t)
			if got := s.Stats().WebSockets; got != int64(n) {
				t.Fatalf("%d WebSockets open, want %d", got, n)
			}
			heap, rss := (heap1-heap0)/float64(n), (rss1-rss0)/float64(n)
			t.Logf("per idle WebSocket stream over h2c (%d streams on %d connections, one echo each): heap %.0f B, RSS %.0f B",
				n, conns, heap, rss)
			// A stream's state, its WSConn and engine, and its share of its
			// connection's: a read or write buffer (64 KiB) kept per idle
			// stream would be far past this.
			if heap > 16<<10 {
				t.Errorf("%.0f heap bytes per idle WebSocket stream: a buffer is kept", heap)
			}
		})
	}
}

// TestWebSocketOverH2IdleClient is the child of
// TestWebSocketOverH2IdleStreamCost; it does nothing in a normal run.
func TestWebSocketOverH2IdleClient(t *testing.T) {
	spec := os.Getenv(h2wsIdleClientEnv)
	if spec == "" {
		t.Skip("the child process of TestWebSocketOverH2IdleStreamCost")
	}
	f := strings.Split(spec, ",")
	if len(f) != 3 {
		t.Fatalf("%s=%q", h2wsIdleClientEnv, spec)
	}
	conns, _ := strconv.Atoi(f[1])
	perConn, _ := strconv.Atoi(f[2])
	var held []*h2wsConn
	for i := range conns {
		nc, err := net.Dial("tcp", f[0])
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		c := startH2WS(t, nc, http2.ClientConfig{})
		sts := make([]*h2wsStream, perConn)
		for j := range sts {
			sts[j] = c.open("/ws", "websocket")
		}
		for _, st := range sts {
			if st.answered() != 200 {
				t.Fatalf("connection %d stream %d: answered %d", i, st.id, st.status)
			}
			st.send(websocket.OpText, "hi")
		}
		c.wait(10*time.Second, "the echoes", func() bool {
			for _, st := range sts {
				if len(st.got) == 0 {
					return false
				}
			}
			return true
		})
		nc.SetReadDeadline(time.Time{})
		held = append(held, c)
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	for _, c := range held {
		c.nc.Close()
	}
}
