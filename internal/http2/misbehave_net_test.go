package http2

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"

	xhttp2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestClientMisbehavingPeerOverLoopback runs the engine over a real socket
// against a Framer-made server that allows one stream, never opens a window
// for request bodies, and sends GOAWAY after its first answer. The driver
// sees a flow-control stall, gives up on it, gets its GET answered, sees the
// GOAWAY, and is done well within its deadline.
func TestClientMisbehavingPeerOverLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		if _, err := io.ReadFull(conn, make([]byte, len(ClientPreface))); err != nil {
			return
		}
		fr := xhttp2.NewFramer(conn, conn)
		fr.WriteSettings(xhttp2.Setting{ID: xhttp2.SettingMaxConcurrentStreams, Val: 1},
			xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 0})
		var hbuf bytes.Buffer
		henc := hpack.NewEncoder(&hbuf)
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			if h, ok := f.(*xhttp2.HeadersFrame); ok && h.StreamEnded() { // a GET: answer, then GOAWAY
				hbuf.Reset()
				henc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
				fr.WriteHeaders(xhttp2.HeadersFrameParam{StreamID: h.StreamID, BlockFragment: hbuf.Bytes(), EndHeaders: true})
				fr.WriteData(h.StreamID, true, []byte("ok"))
				fr.WriteGoAway(h.StreamID, xhttp2.ErrCodeNo, nil)
			}
		}
	}()

	start := time.Now()
	d := dial(t, ln.Addr().String(), ClientConfig{})
	if d.c.CanOpen() != 1 {
		t.Fatalf("CanOpen %d with MAX_CONCURRENT_STREAMS 1", d.c.CanOpen())
	}
	var post uint32
	d.out, post, _ = d.c.Open(d.out, &Request{Method: "POST", Scheme: "http", Authority: "x", Path: "/", Body: make([]byte, 100)})
	// The body cannot move: the driver waits for its stall timeout, no longer.
	stallTimeout := time.Now().Add(300 * time.Millisecond)
	for d.step(stallTimeout) {
	}
	if !d.c.FlowBlocked() {
		t.Fatal("no stall reported with a zero window")
	}
	d.out = d.c.Cancel(d.out, post)
	var get uint32
	d.out, get, err = d.c.Open(d.out, &Request{Method: "GET", Scheme: "http", Authority: "x", Path: "/"})
	if err != nil {
		t.Fatal(err)
	}
	d.until(time.Now().Add(5*time.Second), func() bool { return d.c.GoingAway() })
	if e, ok := d.ended(get); !ok || e.Kind != EventEnd || e.BodyBytes != 2 {
		t.Fatalf("GET: %+v", e)
	}
	if d.c.Active() != 0 || d.c.CanOpen() != 0 {
		t.Fatalf("after GOAWAY: active %d, CanOpen %d", d.c.Active(), d.c.CanOpen())
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("took %v", took)
	}
}
