//go:build linux

package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// wsOpenClientEnv makes the test binary a client that opens and holds
// plain WebSockets (TestWebSocketOpenClient): the address, and how many.
const wsOpenClientEnv = "GUST_WS_OPEN_CLIENT"

// TestWebSocketOpenAllocatesOnlyWhatItKeeps: accepting a connection and
// upgrading it to WebSocket allocates what the connection keeps (its conn
// and WSConn) and next to nothing else. Garbage per connection is what a
// ramp of a million leaves behind for the collector, and the heap grows
// past the live connections by as much: x/sys's Accept4 alone made 150
// bytes of it (the peer's address, never used), and the upgrade's record
// 96. The clients live in a child process, so the figures are the
// server's alone.
func TestWebSocketOpenAllocatesOnlyWhatItKeeps(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a measurement: not under -short or -race")
	}
	const n = 2000
	s := start(t, HandlerFunc(func(c *Ctx) { c.UpgradeWebSocket(wsEcho()) }), Config{Mode: Inline, Loops: 1})
	// Earlier tests' servers wind down, and pools empty over two
	// collections: settle before the first reading.
	settle := func() {
		runtime.GC()
		time.Sleep(100 * time.Millisecond)
		runtime.GC()
		runtime.GC()
	}
	settle()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	release := holdIdleClients(t, "TestWebSocketOpenClient", wsOpenClientEnv+"="+s.Addr().String()+","+strconv.Itoa(n))
	defer release()
	// The child said ready once it read its last 101: the loop may still
	// be finishing that turn (settle waits for it too).
	settle()
	runtime.ReadMemStats(&after)
	allocated := float64(after.TotalAlloc-before.TotalAlloc) / n
	kept := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
	t.Logf("per WebSocket opened (%d): %.0f B allocated, %.0f B kept", n, allocated, kept)
	// The loop's table of connections grows by doubling (a few bytes a
	// connection of garbage); the rest is the conn and the WSConn.
	if garbage := allocated - kept; garbage > 64 {
		t.Errorf("%.0f B allocated and let go per WebSocket opened (%.0f allocated, %.0f kept), want at most 64", garbage, allocated, kept)
	}
}

// TestWebSocketOpenClient is the child of
// TestWebSocketOpenAllocatesOnlyWhatItKeeps; it does nothing in a normal
// run.
func TestWebSocketOpenClient(t *testing.T) {
	spec := os.Getenv(wsOpenClientEnv)
	if spec == "" {
		t.Skip("the child process of TestWebSocketOpenAllocatesOnlyWhatItKeeps")
	}
	addr, count, _ := strings.Cut(spec, ",")
	n, _ := strconv.Atoi(count)
	conns := make([]net.Conn, 0, n)
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		io.WriteString(c, "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		status, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || !strings.HasPrefix(status, "HTTP/1.1 101") {
			t.Fatalf("connection %d: %q %v", i, status, err)
		}
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	for _, c := range conns {
		c.Close()
	}
}

// TestIdleConnectionStructsFitTheirSizeClasses: an idle HTTP connection
// is its conn, and an idle WebSocket its conn and WSConn; each fits the
// allocator's size class it was trimmed to (256 and 176 bytes), so that a
// field added unawares shows here before it shows as 32 more bytes on
// every one of a million connections.
func TestIdleConnectionStructsFitTheirSizeClasses(t *testing.T) {
	if n := unsafe.Sizeof(conn{}); n > 256 {
		t.Errorf("conn is %d bytes, past the 256-byte class", n)
	}
	if n := unsafe.Sizeof(WSConn{}); n > 176 {
		t.Errorf("WSConn is %d bytes, past the 176-byte class", n)
	}
}
