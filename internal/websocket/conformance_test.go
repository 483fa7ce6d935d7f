package websocket

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The cases follow the Autobahn test suite's categories, written from RFC
// 6455 (and RFC 7692 for compression): each feeds a server (or a client)
// Conn some frames and checks the events, what it wrote back, and the close
// code of a protocol error. Every case runs with the input fed at once and
// in 1- and 7-byte pieces, which must not change the outcome.

type confCase struct {
	name   string
	client bool
	max    int
	defl   *DeflateParams
	in     []byte
	events []gotEvent
	out    []gotFrame
	code   int
}

func msg(op Opcode, s string) gotEvent { return gotEvent{EventMessage, op, s, 0} }
func ping(s string) gotEvent           { return gotEvent{EventPing, OpPing, s, 0} }
func pong(s string) gotEvent           { return gotEvent{EventPong, OpPong, s, 0} }
func closeEv(code int, reason string) gotEvent {
	return gotEvent{EventClose, OpClose, reason, code}
}
func pongF(s string) gotFrame { return gotFrame{OpPong, s} }

// closeF is a close frame with code and no reason; 0 for none at all.
func closeF(code int) gotFrame {
	if code == 0 {
		return gotFrame{OpClose, ""}
	}
	return gotFrame{OpClose, closePayload(code, "")}
}

func runConf(t *testing.T, cases []confCase) {
	t.Helper()
	for _, tc := range cases {
		for _, chunk := range []int{0, 1, 7} {
			name := tc.name
			if chunk > 0 {
				name += "/in " + string(rune('0'+chunk)) + "-byte pieces"
			}
			t.Run(name, func(t *testing.T) {
				var c Conn
				c.Init(Config{Client: tc.client, MaxMessage: tc.max, Deflate: tc.defl})
				defer c.Release()
				r := feedAll(t, &c, tc.in, chunk)
				for i, f := range r.out { // a close's reason is free text: keep the code
					if f.Op == OpClose && len(f.Payload) > 2 {
						r.out[i].Payload = f.Payload[:2]
					}
				}
				if r.code != tc.code {
					t.Errorf("close code %d, want %d", r.code, tc.code)
				}
				if !reflect.DeepEqual(r.events, tc.events) {
					t.Errorf("events\n got %+v\nwant %+v", r.events, tc.events)
				}
				if !reflect.DeepEqual(r.out, tc.out) {
					t.Errorf("wrote\n got %+v\nwant %+v", r.out, tc.out)
				}
			})
		}
	}
}

func TestConformanceFraming(t *testing.T) {
	long := func(n int) string { return strings.Repeat("*", n) }
	nonMinimal := []byte{0x81, 0x80 | 126, 0, 5}
	nonMinimal = append(nonMinimal, testKey[:]...)
	nonMinimal = append(nonMinimal, cf(OpText, true, "hello")[6:]...)
	runConf(t, []confCase{
		{name: "an empty text message", in: cf(OpText, true, ""), events: []gotEvent{msg(OpText, "")}},
		{name: "a text message of 125 bytes", in: cf(OpText, true, long(125)), events: []gotEvent{msg(OpText, long(125))}},
		{name: "a text message of 126 bytes (16-bit length)", in: cf(OpText, true, long(126)), events: []gotEvent{msg(OpText, long(126))}},
		{name: "a text message of 65535 bytes", in: cf(OpText, true, long(65535)), events: []gotEvent{msg(OpText, long(65535))}},
		{name: "a text message of 65536 bytes (64-bit length)", in: cf(OpText, true, long(65536)), events: []gotEvent{msg(OpText, long(65536))}},
		{name: "a binary message with every byte value", in: cf(OpBinary, true, allBytes()), events: []gotEvent{msg(OpBinary, allBytes())}},
		{name: "three messages in one read", in: cat(cf(OpText, true, "a"), cf(OpBinary, true, "b"), cf(OpText, true, "c")),
			events: []gotEvent{msg(OpText, "a"), msg(OpBinary, "b"), msg(OpText, "c")}},
		{name: "a length in a longer form than needed is accepted", in: nonMinimal, events: []gotEvent{msg(OpText, "hello")}},
		{name: "a server refuses an unmasked frame", in: sf(OpText, true, "x"), out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "a client refuses a masked frame", client: true, in: cf(OpText, true, "x"), out: []gotFrame{{OpClose, "\x03\xea"}}, code: 1002},
		{name: "a client takes unmasked frames", client: true, in: sf(OpText, true, "x"), events: []gotEvent{msg(OpText, "x")}},
	})
}

func allBytes() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}

func TestConformancePingPong(t *testing.T) {
	pings := make([][]byte, 10)
	var evs []gotEvent
	var outs []gotFrame
	for i := range pings {
		s := strings.Repeat("p", i)
		pings[i] = cf(OpPing, true, s)
		evs = append(evs, ping(s))
		outs = append(outs, pongF(s))
	}
	runConf(t, []confCase{
		{name: "an empty ping is answered by an empty pong", in: cf(OpPing, true, ""), events: []gotEvent{ping("")}, out: []gotFrame{pongF("")}},
		{name: "a ping's payload is echoed", in: cf(OpPing, true, "hello"), events: []gotEvent{ping("hello")}, out: []gotFrame{pongF("hello")}},
		{name: "a ping of 125 binary bytes is echoed", in: cf(OpPing, true, allBytes()[:125]), events: []gotEvent{ping(allBytes()[:125])}, out: []gotFrame{pongF(allBytes()[:125])}},
		{name: "a ping of 126 bytes is refused", in: cf(OpPing, true, strings.Repeat("x", 126)), out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "a fragmented ping is refused", in: cat(cf(OpPing, false, "a"), cf(OpContinuation, true, "b")), out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "an unsolicited pong is reported and not answered", in: cf(OpPong, true, "u"), events: []gotEvent{pong("u")}},
		{name: "a pong of 126 bytes is refused", in: cf(OpPong, true, strings.Repeat("x", 126)), out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "ten pings in a row get ten pongs in order", in: cat(pings...), events: evs, out: outs},
		{name: "a ping after a close gets no pong", in: cat(cf(OpClose, true, ""), cf(OpPing, true, "late")),
			events: []gotEvent{closeEv(CloseNoStatus, "")}, out: []gotFrame{closeF(0)}},
	})
}

func TestConformanceReservedBits(t *testing.T) {
	var cases []confCase
	for _, rsv := range []byte{0x40, 0x20, 0x10, 0x70} {
		for _, op := range []Opcode{OpText, OpBinary, OpPing, OpClose} {
			cases = append(cases, confCase{
				name:   "RSV bits " + string(rune('0'+rsv>>4)) + " on a " + op.String() + " frame without an extension",
				in:     cat(cf(OpText, true, "ok"), rawFrame(0x80|rsv|byte(op), ""), cf(OpText, true, "never")),
				events: []gotEvent{msg(OpText, "ok")}, out: []gotFrame{closeF(1002)}, code: 1002,
			})
		}
	}
	d := &DeflateParams{}
	cases = append(cases,
		confCase{name: "RSV2 with deflate is still refused", defl: d, in: rawFrame(0x80|0x20|1, ""), out: []gotFrame{closeF(1002)}, code: 1002},
		confCase{name: "RSV1 on a ping with deflate is refused", defl: d, in: rawFrame(0x80|0x40|9, ""), out: []gotFrame{closeF(1002)}, code: 1002},
		confCase{name: "RSV1 on a continuation frame is refused", defl: d,
			in: cat(cf(OpText, false, "a"), rawFrame(0x80|0x40|byte(OpContinuation), "b")), out: []gotFrame{closeF(1002)}, code: 1002},
	)
	runConf(t, cases)
}

func TestConformanceOpcodes(t *testing.T) {
	var cases []confCase
	for _, op := range []byte{3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf} {
		cases = append(cases, confCase{
			name:   "reserved opcode " + string("0123456789abcdef"[op]) + " is refused",
			in:     cat(cf(OpText, true, "ok"), rawFrame(0x80|op, "x"), cf(OpPing, true, "")),
			events: []gotEvent{msg(OpText, "ok")}, out: []gotFrame{closeF(1002)}, code: 1002,
		})
	}
	cases = append(cases, confCase{name: "a reserved opcode inside a fragmented message is refused",
		in: cat(cf(OpText, false, "a"), rawFrame(0x03, "x")), out: []gotFrame{closeF(1002)}, code: 1002})
	runConf(t, cases)
}

func TestConformanceFragmentation(t *testing.T) {
	many := make([][]byte, 0, 101)
	many = append(many, cf(OpBinary, false, "0"))
	for i := 1; i < 100; i++ {
		many = append(many, cf(OpContinuation, false, "x"))
	}
	many = append(many, cf(OpContinuation, true, "!"))
	runConf(t, []confCase{
		{name: "a text message in two fragments", in: cat(cf(OpText, false, "frag"), cf(OpContinuation, true, "ment")),
			events: []gotEvent{msg(OpText, "fragment")}},
		{name: "a binary message in 101 fragments", in: cat(many...), events: []gotEvent{msg(OpBinary, "0"+strings.Repeat("x", 99)+"!")}},
		{name: "empty fragments make an empty message", in: cat(cf(OpText, false, ""), cf(OpContinuation, false, ""), cf(OpContinuation, true, "")),
			events: []gotEvent{msg(OpText, "")}},
		{name: "a ping between fragments is answered at once", in: cat(cf(OpText, false, "a"), cf(OpPing, true, "p"), cf(OpContinuation, true, "b")),
			events: []gotEvent{ping("p"), msg(OpText, "ab")}, out: []gotFrame{pongF("p")}},
		{name: "a pong between fragments", in: cat(cf(OpText, false, "a"), cf(OpPong, true, "p"), cf(OpContinuation, true, "b")),
			events: []gotEvent{pong("p"), msg(OpText, "ab")}},
		{name: "two fragmented messages back to back", in: cat(cf(OpText, false, "a"), cf(OpContinuation, true, "b"), cf(OpBinary, false, "c"), cf(OpContinuation, true, "d")),
			events: []gotEvent{msg(OpText, "ab"), msg(OpBinary, "cd")}},
		{name: "a continuation without a start is refused", in: cf(OpContinuation, true, "x"), out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "a lone unfinished continuation is refused", in: cf(OpContinuation, false, "x"), out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "a continuation after a whole message is refused", in: cat(cf(OpText, true, "a"), cf(OpContinuation, true, "b")),
			events: []gotEvent{msg(OpText, "a")}, out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "a new text frame inside a fragmented message is refused", in: cat(cf(OpText, false, "a"), cf(OpText, true, "b")), out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "a new binary frame inside a fragmented message is refused", in: cat(cf(OpBinary, false, "a"), cf(OpBinary, false, "b")), out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "a fragmented close is refused", in: rawFrame(0x08, ""), out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "a fragmented pong is refused", in: cat(cf(OpText, false, "a"), rawFrame(0x0a, "")), out: []gotFrame{closeF(1002)}, code: 1002},
	})
}

func TestConformanceUTF8(t *testing.T) {
	hello := "κόσμε"
	var frags [][]byte // hello split at every byte, each its own fragment
	for i := 0; i < len(hello); i++ {
		op := OpContinuation
		if i == 0 {
			op = OpText
		}
		frags = append(frags, cf(op, i == len(hello)-1, hello[i:i+1]))
	}
	bad := func(name string, in []byte) confCase {
		return confCase{name: name, in: in, out: []gotFrame{closeF(1007)}, code: 1007}
	}
	runConf(t, []confCase{
		{name: "valid multi-byte text", in: cf(OpText, true, hello+"\U0010FFFF\u00e9"), events: []gotEvent{msg(OpText, hello+"\U0010FFFF\u00e9")}},
		{name: "a code point split over fragments, a byte each", in: cat(frags...), events: []gotEvent{msg(OpText, hello)}},
		{name: "a four-byte code point split 1+3", in: cat(cf(OpText, false, "\xf0"), cf(OpContinuation, true, "\x9f\x98\x80")), events: []gotEvent{msg(OpText, "😀")}},
		{name: "binary messages are not checked", in: cf(OpBinary, true, "\xff\xfe"), events: []gotEvent{msg(OpBinary, "\xff\xfe")}},
		bad("invalid bytes in one frame", cf(OpText, true, "a\xffb")),
		bad("a surrogate (ED A0 80)", cf(OpText, true, "\xed\xa0\x80")),
		bad("an overlong NUL (C0 80)", cf(OpText, true, "\xc0\x80")),
		bad("an overlong three-byte form (E0 80 AF)", cf(OpText, true, "\xe0\x80\xaf")),
		bad("a code point above U+10FFFF (F4 90 80 80)", cf(OpText, true, "\xf4\x90\x80\x80")),
		bad("a message ending inside a code point", cf(OpText, true, "ab\xe2\x82")),
		bad("a fragmented message ending inside a code point", cat(cf(OpText, false, "ab"), cf(OpContinuation, true, "\xe2\x82"))),
		// Fail fast: the first fragment is already hopeless, the rest never
		// has to arrive (Autobahn 6.4.x).
		bad("invalid bytes in the first fragment fail before the message ends", cat(cf(OpText, false, "ok\xf4\x90"))),
		bad("an invalid continuation byte after a split lead byte", cat(cf(OpText, false, "\xe2"), cf(OpContinuation, false, "\x28"))),
		bad("a surrogate split over fragments", cat(cf(OpText, false, "\xed"), cf(OpContinuation, true, "\xa0\x80"))),
		bad("invalid UTF-8 in a close reason", cf(OpClose, true, closePayload(1000, "\xff"))),
	})
}

func TestConformanceClose(t *testing.T) {
	var cases []confCase
	for _, code := range []int{1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999} {
		cases = append(cases, confCase{name: "valid code " + itoa(code) + " is echoed",
			in: cf(OpClose, true, closePayload(code, "bye")), events: []gotEvent{closeEv(code, "bye")}, out: []gotFrame{closeF(code)}})
	}
	for _, code := range []int{0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535} {
		cases = append(cases, confCase{name: "invalid code " + itoa(code) + " is refused",
			in: cf(OpClose, true, closePayload(code, "")), out: []gotFrame{closeF(1002)}, code: 1002})
	}
	cases = append(cases,
		confCase{name: "an empty close is answered by an empty close", in: cf(OpClose, true, ""), events: []gotEvent{closeEv(CloseNoStatus, "")}, out: []gotFrame{closeF(0)}},
		confCase{name: "a 1-byte close payload is refused", in: cf(OpClose, true, "\x03"), out: []gotFrame{closeF(1002)}, code: 1002},
		confCase{name: "a close with a 123-byte reason", in: cf(OpClose, true, closePayload(1000, strings.Repeat("r", 123))),
			events: []gotEvent{closeEv(1000, strings.Repeat("r", 123))}, out: []gotFrame{closeF(1000)}},
		confCase{name: "a close with a 124-byte reason is too long", in: cf(OpClose, true, closePayload(1000, strings.Repeat("r", 124))), out: []gotFrame{closeF(1002)}, code: 1002},
		confCase{name: "frames after a close are ignored", in: cat(cf(OpClose, true, closePayload(1000, "")), cf(OpText, true, "late"), []byte{0xff, 0xff}),
			events: []gotEvent{closeEv(1000, "")}, out: []gotFrame{closeF(1000)}},
		confCase{name: "a close in the middle of a fragmented message", in: cat(cf(OpText, false, "a"), cf(OpClose, true, closePayload(1000, ""))),
			events: []gotEvent{closeEv(1000, "")}, out: []gotFrame{closeF(1000)}},
		confCase{name: "a client answers a close with a masked close", client: true, in: sf(OpClose, true, closePayload(1001, "")),
			events: []gotEvent{closeEv(1001, "")}, out: []gotFrame{closeF(1001)}},
	)
	runConf(t, cases)
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

func TestConformanceLimits(t *testing.T) {
	huge := []byte{0x82, 0x80 | 127, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	huge = append(huge, testKey[:]...)
	topBit := []byte{0x82, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 1}
	topBit = append(topBit, testKey[:]...)
	over := []byte{0x82, 0x80 | 126, 0x04, 0x01} // 1025 bytes announced
	over = append(over, testKey[:]...)
	runConf(t, []confCase{
		{name: "a frame announcing 2^63-1 bytes is refused from its header alone", in: huge, out: []gotFrame{closeF(1009)}, code: 1009},
		{name: "a 64-bit length with the top bit set is refused", in: topBit, out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "a frame announcing more than MaxMessage is refused before its payload", max: 1024, in: over, out: []gotFrame{closeF(1009)}, code: 1009},
		{name: "a message of exactly MaxMessage is taken", max: 1024, in: cf(OpBinary, true, strings.Repeat("x", 1024)), events: []gotEvent{msg(OpBinary, strings.Repeat("x", 1024))}},
		{name: "fragments adding up past MaxMessage are refused", max: 1024,
			in:  cat(cf(OpBinary, false, strings.Repeat("x", 1000)), cf(OpContinuation, false, strings.Repeat("x", 24)), cf(OpContinuation, true, "y")),
			out: []gotFrame{closeF(1009)}, code: 1009},
		{name: "fragments adding up to exactly MaxMessage are taken", max: 1024,
			in:     cat(cf(OpBinary, false, strings.Repeat("x", 1000)), cf(OpContinuation, true, strings.Repeat("x", 24))),
			events: []gotEvent{msg(OpBinary, strings.Repeat("x", 1024))}},
		{name: "control frames do not count toward MaxMessage", max: 4, in: cat(cf(OpBinary, false, "abcd"), cf(OpPing, true, "0123456789"), cf(OpContinuation, true, "")),
			events: []gotEvent{ping("0123456789"), msg(OpBinary, "abcd")}, out: []gotFrame{pongF("0123456789")}},
	})
}

func TestConformanceCompression(t *testing.T) {
	d := &DeflateParams{}
	hello := []byte(strings.Repeat("Hello, compressed world! ", 20))
	z := stdDeflate(t, hello)
	half := len(z) / 2
	bomb := stdDeflate(t, make([]byte, 1<<20))
	// Random bytes do not compress: stored blocks make the compressed
	// message a few bytes larger than what it inflates to.
	noise := make([]byte, 64<<10)
	rand.NewChaCha8([32]byte{1}).Read(noise)
	zNoise := stdDeflate(t, noise)
	if len(zNoise) <= len(noise) {
		t.Fatalf("random bytes compressed to %d of %d: the cases below need them larger", len(zNoise), len(noise))
	}
	// A header alone: masked, RSV1, 64-bit length one past the bound.
	over := appendHeader(nil, OpBinary, true, true, CompressedBound(len(noise))+1, &testKey)
	runConf(t, []confCase{
		{name: "an incompressible message of exactly MaxMessage, larger compressed, is taken", defl: d, max: len(noise),
			in: zf(OpBinary, true, true, zNoise), events: []gotEvent{msg(OpBinary, string(noise))}},
		{name: "the same message in two compressed fragments is taken", defl: d, max: len(noise),
			in: cat(zf(OpBinary, false, true, zNoise[:len(zNoise)/2]), zf(OpContinuation, true, false, zNoise[len(zNoise)/2:])), events: []gotEvent{msg(OpBinary, string(noise))}},
		{name: "a compressed frame announcing more than the bound of MaxMessage is refused", defl: d, max: len(noise), in: over, out: []gotFrame{closeF(1009)}, code: 1009},
		{name: "a compressed text message in one frame", defl: d, in: zf(OpText, true, true, z), events: []gotEvent{msg(OpText, string(hello))}},
		{name: "a compressed message in two fragments", defl: d, in: cat(zf(OpBinary, false, true, z[:half]), zf(OpContinuation, true, false, z[half:])),
			events: []gotEvent{msg(OpBinary, string(hello))}},
		{name: "a ping between compressed fragments", defl: d, in: cat(zf(OpBinary, false, true, z[:half]), cf(OpPing, true, "p"), zf(OpContinuation, true, false, z[half:])),
			events: []gotEvent{ping("p"), msg(OpBinary, string(hello))}, out: []gotFrame{pongF("p")}},
		{name: "an uncompressed message on a deflate connection", defl: d, in: cf(OpText, true, "plain"), events: []gotEvent{msg(OpText, "plain")}},
		{name: "an empty compressed message (a single 0x00)", defl: d, in: zf(OpText, true, true, []byte{0}), events: []gotEvent{msg(OpText, "")}},
		{name: "an empty compressed payload", defl: d, in: zf(OpBinary, true, true, nil), events: []gotEvent{msg(OpBinary, "")}},
		{name: "compressed without the extension is refused", in: zf(OpText, true, true, z), out: []gotFrame{closeF(1002)}, code: 1002},
		{name: "a decompression bomb stops at MaxMessage", defl: d, max: 64 << 10, in: zf(OpBinary, true, true, bomb), out: []gotFrame{closeF(1009)}, code: 1009},
		{name: "a message inflating to exactly MaxMessage is taken", defl: d, max: len(hello), in: zf(OpText, true, true, z), events: []gotEvent{msg(OpText, string(hello))}},
		{name: "a message inflating to one byte over MaxMessage is refused", defl: d, max: len(hello) - 1, in: zf(OpText, true, true, z), out: []gotFrame{closeF(1009)}, code: 1009},
		{name: "invalid deflate data is refused with 1007", defl: d, in: zf(OpBinary, true, true, []byte{0xff, 0xff, 0xff}), out: []gotFrame{closeF(1007)}, code: 1007},
		{name: "compressed invalid UTF-8 is refused", defl: d, in: zf(OpText, true, true, stdDeflate(t, []byte("a\xffb"))), out: []gotFrame{closeF(1007)}, code: 1007},
		{name: "a compressed message with a final block", defl: d, in: zf(OpText, true, true, finalDeflate(t, hello)), events: []gotEvent{msg(OpText, string(hello))}},
	})
}

// finalDeflate compresses p into a stream closed by a final block, which
// RFC 7692 section 7.2.3.4 allows.
func finalDeflate(t *testing.T, p []byte) []byte {
	b := stdDeflate(t, p)
	// An empty final fixed-Huffman block after the sync flush: BFINAL=1,
	// BTYPE=01, end-of-block code 0000000: bits 1,1,0 then seven 0s.
	return append(append(b, syncTail[:]...), 0x03, 0x00)
}

// TestConformanceContextTakeover feeds a server messages a peer compressed
// with one deflate stream across messages (back-references into earlier
// messages), which it can only read with its history window.
func TestConformanceContextTakeover(t *testing.T) {
	var zb []byte
	w := newStdStream(t, &zb)
	msgs := []string{strings.Repeat("abcdefgh", 50), strings.Repeat("abcdefgh", 50) + "tail", "abcdefghabcdefgh"}
	var in [][]byte
	var want []gotEvent
	for _, m := range msgs {
		z := w.message(t, []byte(m))
		in = append(in, zf(OpText, true, true, z))
		want = append(want, msg(OpText, m))
	}
	runConf(t, []confCase{
		{name: "messages compressed with context takeover", defl: &DeflateParams{}, in: cat(in...), events: want},
	})
	// The second message alone is unreadable without the first's history:
	// it refers back into it, so this test does exercise the window.
	var c Conn
	c.Init(Config{Deflate: &DeflateParams{ClientNoContextTakeover: true}})
	_, _, err := c.Feed(nil, bytes.Clone(in[1]))
	if err == nil && len(c.Events()) == 1 && string(c.Events()[0].Payload) == msgs[1] {
		t.Fatal("second message decoded without the first's history")
	}
}
