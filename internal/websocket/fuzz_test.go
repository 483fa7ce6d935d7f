package websocket

import (
	"bytes"
	stdflate "compress/flate"
	"io"
	"testing"
	"unicode/utf8"
)

// FuzzFeed feeds arbitrary bytes to a server and a client Conn, with and
// without deflate, whole and in two pieces, and checks the invariants: no
// panic, n within bounds, the same outcome however the bytes are split,
// messages within MaxMessage, text messages valid UTF-8, an error always
// with a close frame written and a valid code.
func FuzzFeed(f *testing.F) {
	f.Add([]byte{}, uint8(0), uint16(3))
	f.Add(cf(OpText, true, "hello"), uint8(0), uint16(3))
	f.Add(cat(cf(OpText, false, "a"), cf(OpPing, true, "p"), cf(OpContinuation, true, "b")), uint8(0), uint16(7))
	f.Add(sf(OpBinary, true, "server"), uint8(1), uint16(2))
	f.Add(zf(OpText, true, true, stdDeflate(f, []byte("hello hello hello"))), uint8(2), uint16(9))
	f.Add(cf(OpClose, true, closePayload(1000, "bye")), uint8(0), uint16(1))
	f.Add(rawFrame(0x81, "\xed\xa0\x80"), uint8(0), uint16(4))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, split uint16) {
		cfg := Config{Client: mode&1 != 0, MaxMessage: 4096}
		if mode&2 != 0 {
			cfg.Deflate = &DeflateParams{ClientNoContextTakeover: mode&4 != 0, ServerNoContextTakeover: mode&4 != 0}
		}
		whole := feedFuzz(t, cfg, bytes.Clone(data), len(data))
		parts := feedFuzz(t, cfg, bytes.Clone(data), int(split)%(len(data)+1))
		if whole != parts {
			t.Fatalf("outcome depends on the split:\n whole %s\n split %s", whole, parts)
		}
	})
}

// feedFuzz feeds data in two pieces and returns a summary of the outcome.
func feedFuzz(t *testing.T, cfg Config, data []byte, split int) string {
	var c Conn
	c.Init(cfg)
	defer c.Release()
	var sum bytes.Buffer
	var out, pending []byte
	for _, piece := range [][]byte{data[:split], data[split:]} {
		pending = append(pending, piece...)
		before := len(out)
		var n int
		var err error
		out, n, err = c.Feed(out, pending)
		if n < 0 || n > len(pending) {
			t.Fatalf("n=%d of %d", n, len(pending))
		}
		for _, e := range c.Events() {
			if e.Kind == EventMessage {
				if len(e.Payload) > cfg.MaxMessage {
					t.Fatalf("message of %d bytes over the limit", len(e.Payload))
				}
				if e.Op == OpText && !utf8.Valid(e.Payload) {
					t.Fatal("invalid UTF-8 delivered")
				}
			}
			sum.WriteString(e.Kind.String())
			sum.WriteByte(' ')
			sum.Write(e.Payload)
			sum.WriteByte('|')
		}
		if err != nil {
			ce := err.(*CloseError)
			if !ValidCloseCode(ce.Code) {
				t.Fatalf("close code %d", ce.Code)
			}
			if len(out) == before && !c.CloseSent() {
				t.Fatal("error without a close frame")
			}
			sum.WriteString("error " + itoa(ce.Code))
			break
		}
		pending = append(pending[:0], pending[n:]...)
	}
	// What was written must parse as frames with the right masking.
	parseOut(t, out, cfg.Client)
	return sum.String()
}

// FuzzUTF8 checks the incremental validator against unicode/utf8 over
// arbitrary splits of arbitrary bytes.
func FuzzUTF8(f *testing.F) {
	for _, s := range []string{"", "hello", "κόσμε", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x9f\x98", "a\xffb", "\xe0\x80\xaf", "😀😀"} {
		f.Add([]byte(s), []byte{1, 2, 3})
	}
	f.Fuzz(func(t *testing.T, p, cuts []byte) {
		var v UTF8
		rest := p
		ok := true
		for _, c := range cuts {
			k := int(c) % (len(rest) + 1)
			if !v.Write(rest[:k]) {
				ok = false
			}
			rest = rest[k:]
		}
		if !v.Write(rest) {
			ok = false
		}
		want := utf8.Valid(p)
		if got := ok && v.Done(); got != want {
			t.Fatalf("%q cut by %v: got %v, want %v", p, cuts, got, want)
		}
		// Fail fast: a Write fails exactly when its end leaves no valid
		// completion of the input so far.
		if !want && ok && v.need == 0 {
			t.Fatalf("%q: invalid, yet every piece passed and no code point is open", p)
		}
	})
}

// FuzzInflate inflates arbitrary bytes (and the deflate of them) under a
// limit: it never panics, never returns more than the limit, and agrees
// with the standard library on valid streams.
func FuzzInflate(f *testing.F) {
	f.Add([]byte{0}, uint16(100))
	f.Add(stdDeflate(f, bytes.Repeat([]byte("a"), 5000)), uint16(1000))
	f.Add(stdDeflate(f, []byte("hello")), uint16(5))
	f.Fuzz(func(t *testing.T, z []byte, limit uint16) {
		max := int(limit)
		out, err := inflate(nil, 0, z, nil, max)
		if len(out) > max+1 {
			t.Fatalf("inflated %d bytes under a limit of %d", len(out), max)
		}
		if err == nil {
			if len(out) > max {
				t.Fatalf("%d bytes over the limit %d without an error", len(out), max)
			}
			std, _ := io.ReadAll(io.LimitReader(stdflate.NewReader(io.MultiReader(bytes.NewReader(z), bytes.NewReader(syncTail[:]))), int64(max)+1))
			if !bytes.HasPrefix(std, out) && !bytes.HasPrefix(out, std) {
				t.Fatalf("disagrees with compress/flate")
			}
		}
		// And a round trip through this package's compressor.
		c := getCompressor(15)
		zz := c.compress(nil, z)
		putCompressor(c, 15)
		back, err := inflate(nil, 0, zz, nil, len(z))
		if err != nil || !bytes.Equal(back, z) {
			t.Fatalf("round trip of %d bytes: %v", len(z), err)
		}
	})
}
