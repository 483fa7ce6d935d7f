package websocket

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRoundTrip sends messages both ways between a client Conn and a server
// Conn, without deflate and with it under every context takeover setting
// and a small window, and checks each arrives intact.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var msgs [][]byte
	for _, n := range []int{0, 1, 125, 126, 1000, 65535, 65536, 200000} {
		words := []string{"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ", "dog ", "\n"}
		var b []byte
		for len(b) < n {
			b = append(b, words[rng.IntN(len(words))]...) // compressible text
		}
		msgs = append(msgs, b[:n])
	}
	msgs = append(msgs, []byte(strings.Repeat("repeat after me ", 100)), msgs[4]) // the same again: history helps
	cases := []struct {
		name string
		p    *DeflateParams
	}{
		{"without deflate", nil},
		{"deflate with context takeover both ways", &DeflateParams{}},
		{"deflate without context takeover", &DeflateParams{ServerNoContextTakeover: true, ClientNoContextTakeover: true}},
		{"deflate with context takeover on the server side only", &DeflateParams{ClientNoContextTakeover: true}},
		{"deflate with 9- and 10-bit windows", &DeflateParams{ServerMaxWindowBits: 9, ClientMaxWindowBits: 10}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var cl, sv Conn
			cl.Init(Config{Client: true, Deflate: tc.p})
			sv.Init(Config{Deflate: tc.p})
			defer cl.Release()
			defer sv.Release()
			for i, m := range msgs {
				op := OpText
				if i%2 == 1 {
					op = OpBinary
				}
				for _, dir := range []struct {
					name     string
					from, to *Conn
				}{{"client to server", &cl, &sv}, {"server to client", &sv, &cl}} {
					wire, err := dir.from.AppendMessage(nil, op, m)
					if err != nil {
						t.Fatal(err)
					}
					out, n, err := dir.to.Feed(nil, wire)
					if err != nil || n != len(wire) || len(out) != 0 {
						t.Fatalf("%s message %d: n=%d/%d out=%d err=%v", dir.name, i, n, len(wire), len(out), err)
					}
					ev := dir.to.Events()
					if len(ev) != 1 || ev[0].Kind != EventMessage || ev[0].Op != op || !bytes.Equal(ev[0].Payload, m) {
						t.Fatalf("%s message %d (%d bytes): got %d events", dir.name, i, len(m), len(ev))
					}
					if tc.p != nil && len(m) > 1000 && len(wire) > len(m)/2 {
						t.Errorf("%s: %d bytes compressed to %d", dir.name, len(m), len(wire))
					}
				}
			}
			// Ping and the close handshake.
			wire := cl.AppendPing(nil, []byte("are you there"))
			pongWire, _, err := sv.Feed(nil, wire)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := cl.Feed(nil, pongWire); err != nil || cl.Events()[0].Kind != EventPong || string(cl.Events()[0].Payload) != "are you there" {
				t.Fatalf("pong: %v %+v", err, cl.Events())
			}
			wire = cl.AppendClose(nil, CloseGoingAway, "bye")
			if again := cl.AppendClose(nil, CloseNormal, ""); len(again) != 0 {
				t.Error("AppendClose sent twice")
			}
			if _, err := cl.AppendMessage(nil, OpText, []byte("late")); err != ErrCloseSent {
				t.Errorf("AppendMessage after close: %v", err)
			}
			reply, _, err := sv.Feed(nil, wire)
			if err != nil || !sv.CloseReceived() || !sv.CloseSent() {
				t.Fatalf("server close: %v", err)
			}
			if e := sv.Events()[0]; e.Kind != EventClose || e.Code != CloseGoingAway || string(e.Payload) != "bye" {
				t.Fatalf("server got %+v", e)
			}
			if _, _, err := cl.Feed(nil, reply); err != nil || !cl.CloseReceived() || cl.Events()[0].Code != CloseGoingAway {
				t.Fatalf("client close: %v %+v", err, cl.Events())
			}
		})
	}
}

// TestSharedCompressedFrame: a frame compressed once is read by server
// connections' peers whatever their own state.
func TestSharedCompressedFrame(t *testing.T) {
	payload := []byte(strings.Repeat("broadcast ", 100))
	frame := AppendCompressedFrame(nil, OpText, payload)
	if len(frame) >= len(payload) {
		t.Fatalf("not compressed: %d bytes", len(frame))
	}
	p := &DeflateParams{ServerNoContextTakeover: true}
	var sv, cl Conn
	sv.Init(Config{Deflate: p})
	cl.Init(Config{Client: true, Deflate: p})
	if !sv.SharedCompression() || cl.SharedCompression() {
		t.Fatal("SharedCompression: want true for the server, false for the client")
	}
	var off Conn
	off.Init(Config{Deflate: &DeflateParams{}})
	if off.SharedCompression() {
		t.Fatal("SharedCompression with context takeover")
	}
	for i := 0; i < 3; i++ {
		wire := frame
		if i == 1 {
			wire, _ = sv.AppendMessage(nil, OpText, payload) // interleaved with the connection's own
		}
		if _, _, err := cl.Feed(nil, bytes.Clone(wire)); err != nil || !bytes.Equal(cl.Events()[0].Payload, payload) {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
}

// TestPartialFrames: a message fed one byte at a time is consumed only when
// whole, and the bytes of a frame cut off are left untouched (not unmasked).
func TestPartialFrames(t *testing.T) {
	wire := cf(OpText, true, "hello, world")
	orig := bytes.Clone(wire)
	var c Conn
	c.Init(Config{})
	for i := 0; i < len(wire); i++ {
		_, n, err := c.Feed(nil, wire[:i])
		if n != 0 || err != nil || len(c.Events()) != 0 {
			t.Fatalf("%d bytes: n=%d err=%v", i, n, err)
		}
		if !bytes.Equal(wire, orig) {
			t.Fatalf("%d bytes: the partial frame was modified", i)
		}
	}
	_, n, err := c.Feed(nil, wire)
	if n != len(wire) || err != nil || string(c.Events()[0].Payload) != "hello, world" {
		t.Fatalf("whole: n=%d err=%v", n, err)
	}
	if &c.Events()[0].Payload[0] != &wire[6] {
		t.Error("payload of an unfragmented message was copied")
	}
}

// TestErrorIsSticky: after a protocol error Feed consumes nothing and
// returns the same error, and the close it sent is the only one.
func TestErrorIsSticky(t *testing.T) {
	var c Conn
	c.Init(Config{})
	out, _, err := c.Feed(nil, rawFrame(0x83, ""))
	if err == nil || len(out) == 0 || !c.CloseSent() || c.Err() != err {
		t.Fatalf("first: err=%v out=%d", err, len(out))
	}
	out2, n, err2 := c.Feed(nil, cf(OpText, true, "x"))
	if err2 != err || n != 0 || len(out2) != 0 {
		t.Fatalf("second: err=%v n=%d out=%d", err2, n, len(out2))
	}
	if got := c.AppendClose(nil, 1000, ""); len(got) != 0 {
		t.Error("a second close after the error's")
	}
}

// TestManyEventsInOneFeed crosses the inline event storage.
func TestManyEventsInOneFeed(t *testing.T) {
	var in [][]byte
	for i := 0; i < 50; i++ {
		in = append(in, cf(OpText, false, "a"), cf(OpPing, true, ""), cf(OpContinuation, true, itoa(i)))
	}
	var c Conn
	c.Init(Config{})
	_, _, err := c.Feed(nil, cat(in...))
	if err != nil || len(c.Events()) != 100 {
		t.Fatalf("err=%v events=%d", err, len(c.Events()))
	}
	for i := 0; i < 50; i++ {
		if e := c.Events()[2*i+1]; string(e.Payload) != "a"+itoa(i) {
			t.Fatalf("message %d: %q", i, e.Payload)
		}
	}
	c.Recycle()
	if len(c.Events()) != 0 || c.buf != nil || c.events != nil {
		t.Error("Recycle kept buffers")
	}
}

// TestLentEventsAreUsedAndKept: a Conn fed with a lent slice reports its
// events there, keeps no slice of its own, and Feeds that follow a loan
// reuse it.
func TestLentEventsAreUsedAndKept(t *testing.T) {
	var c Conn
	c.Init(Config{})
	lent := make([]Event, 0, 4)
	for round := range 3 {
		c.Lend(&lent)
		msg := "m" + itoa(round)
		_, _, err := c.Feed(nil, cat(cf(OpText, true, msg), cf(OpBinary, true, "b")))
		if err != nil || len(c.Events()) != 2 || string(c.Events()[0].Payload) != msg {
			t.Fatalf("round %d: err=%v events=%v", round, err, c.Events())
		}
		if len(lent) != 2 || &lent[0] != &c.Events()[0] || c.pooled {
			t.Fatalf("round %d: the events did not go into the lent slice", round)
		}
		c.Recycle()
		if c.events != nil || len(lent) != 0 || lent[:1][0].Payload != nil {
			t.Fatalf("round %d: Recycle kept the loan or the payloads it viewed", round)
		}
	}
}
