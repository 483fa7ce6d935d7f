package websocket

import (
	"bytes"
	"strings"
	"testing"
)

// BenchmarkFeed64 is a server reading one 64-byte masked text message: the
// payload is unmasked in place and delivered without a copy.
func BenchmarkFeed64(b *testing.B) {
	wire := cf(OpText, true, strings.Repeat("x", 64))
	buf := make([]byte, len(wire))
	var c Conn
	c.Init(Config{})
	b.ReportAllocs()
	b.SetBytes(64)
	for b.Loop() {
		copy(buf, wire) // Feed unmasks in place
		_, n, err := c.Feed(nil, buf)
		if err != nil || n != len(buf) || len(c.Events()) != 1 {
			b.Fatal(err)
		}
	}
}

// BenchmarkFeedFragmented is a 4 KiB text message in four fragments.
func BenchmarkFeedFragmented(b *testing.B) {
	part := strings.Repeat("y", 1024)
	wire := cat(cf(OpText, false, part), cf(OpContinuation, false, part), cf(OpContinuation, false, part), cf(OpContinuation, true, part))
	buf := make([]byte, len(wire))
	var c Conn
	c.Init(Config{})
	b.ReportAllocs()
	b.SetBytes(4096)
	for b.Loop() {
		copy(buf, wire)
		if _, _, err := c.Feed(nil, buf); err != nil || len(c.Events()) != 1 {
			b.Fatal(err)
		}
	}
}

// BenchmarkFeedDeflate is a server reading a compressed 1 KiB message,
// without context takeover (pooled decompressor).
func BenchmarkFeedDeflate(b *testing.B) {
	msg := []byte(strings.Repeat("compressible message ", 50))
	wire := zf(OpText, true, true, stdDeflate(b, msg))
	buf := make([]byte, len(wire))
	var c Conn
	c.Init(Config{Deflate: &DeflateParams{ClientNoContextTakeover: true}})
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		copy(buf, wire)
		if _, _, err := c.Feed(nil, buf); err != nil || len(c.Events()) != 1 {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendMessage(b *testing.B) {
	msg := []byte(strings.Repeat("compressible message ", 50))
	for _, bc := range []struct {
		name string
		cfg  Config
	}{
		{"server-64B", Config{}},
		{"client-masked-64B", Config{Client: true}},
		{"server-deflate-pooled-1KiB", Config{Deflate: &DeflateParams{ServerNoContextTakeover: true}}},
		{"server-deflate-takeover-1KiB", Config{Deflate: &DeflateParams{}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := msg[:64]
			if bc.cfg.Deflate != nil {
				p = msg
			}
			var c Conn
			c.Init(bc.cfg)
			dst := make([]byte, 0, 4096)
			b.ReportAllocs()
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				var err error
				if dst, err = c.AppendMessage(dst[:0], OpText, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMask(b *testing.B) {
	for _, n := range []int{64, 1024, 65536} {
		p := make([]byte, n)
		b.Run(itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for b.Loop() {
				Mask(p, testKey, 1)
			}
		})
	}
}

func BenchmarkUTF8(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"ascii-4KiB", strings.Repeat("plain ascii text", 256)},
		{"greek-4KiB", strings.Repeat("κόσμε κόσμε", 200)},
	} {
		p := []byte(bc.text)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				var v UTF8
				// In 1000-byte pieces, which split code points.
				for q := p; len(q) > 0; q = q[min(1000, len(q)):] {
					v.Write(q[:min(1000, len(q))])
				}
				if !v.Done() {
					b.Fatal("invalid")
				}
			}
		})
	}
}

func BenchmarkAcceptKey(b *testing.B) {
	key := []byte("dGhlIHNhbXBsZSBub25jZQ==")
	dst := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		dst = AcceptKey(dst[:0], key)
	}
	if !bytes.Equal(dst, []byte("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")) {
		b.Fatal(string(dst))
	}
}

func BenchmarkAppendCompressedFrame(b *testing.B) {
	msg := []byte(strings.Repeat("broadcast message ", 60))
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		dst = AppendCompressedFrame(dst[:0], OpText, msg)
	}
}
