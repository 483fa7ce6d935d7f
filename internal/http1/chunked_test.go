package http1

import (
	"fmt"
	"strings"
	"testing"
)

// chunkCase is a chunked body and what decoding it must produce.
type chunkCase struct {
	name     string
	in       string
	data     string // the decoded data
	done     bool
	consumed int // -1 means len(in); on error, the offset of the offending byte
	err      error
}

var chunkCases = []chunkCase{
	{name: "a single chunk decodes", in: "5\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "several chunks concatenate", in: "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", data: "hello world", done: true, consumed: -1},
	{name: "hex sizes may use either case", in: "a\r\n0123456789\r\nA\r\nabcdefghij\r\n0\r\n\r\n", data: "0123456789abcdefghij", done: true, consumed: -1},
	{name: "sizes may have leading zeros", in: "0005\r\nhello\r\n000\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "a size of sixteen hex digits is accepted", in: "000000000000000a\r\n0123456789\r\n0\r\n\r\n", data: "0123456789", done: true, consumed: -1},
	{name: "chunk extensions are skipped", in: "5;name=value\r\nhello\r\n0;last=\"a;b\"\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "whitespace before an extension is skipped", in: "5 \t;x\r\nhello\r\n0 ;y\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "whitespace after the size without an extension is refused", in: "5 \r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 2},
	{name: "the longest extension is accepted", in: "5;" + strings.Repeat("x", maxChunkLineExtra-1) + "\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "trailer fields are skipped", in: "5\r\nhello\r\n0\r\nExpires: never\r\nX-Sum:abc\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "a trailer field may be empty", in: "0\r\nX:\r\n\r\n", done: true, consumed: -1},
	{name: "the largest trailer section is accepted", in: "0\r\nX: " + strings.Repeat("y", maxTrailer-3) + "\r\n\r\n", done: true, consumed: -1},
	{name: "an empty body decodes", in: "0\r\n\r\n", done: true, consumed: -1},
	{name: "CRLF inside chunk data is data", in: "4\r\n\r\n\r\n\r\n0\r\n\r\n", data: "\r\n\r\n", done: true, consumed: -1},
	{name: "binary chunk data is data", in: "3\r\n\x00\xff\n\r\n0\r\n\r\n", data: "\x00\xff\n", done: true, consumed: -1},
	{name: "bytes after the body are not consumed", in: "0\r\n\r\nHTTP/1.1 200 OK\r\n", done: true, consumed: 5},
	{name: "empty input is not done", in: "", consumed: -1},
	{name: "a partial chunk yields its data so far", in: "5\r\nhel", data: "hel", consumed: -1},
	{name: "a body missing its final LF is not done", in: "5\r\nhello\r\n0\r\n\r", data: "hello", consumed: -1},
	{name: "the largest chunk size is accepted", in: "4000000000000000\r\n", consumed: -1},
	{name: "a size that is not hex is refused", in: "x\r\n", err: ErrBadChunk, consumed: 0},
	{name: "a missing size is refused", in: "\r\n", err: ErrBadChunk, consumed: 0},
	{name: "a signed size is refused", in: "-5\r\n", err: ErrBadChunk, consumed: 0},
	{name: "a bare LF after the size is refused", in: "5\nhello", err: ErrBadChunk, consumed: 1},
	{name: "a CR not followed by LF after the size is refused", in: "5\r\rhello", err: ErrBadChunk, consumed: 2},
	{name: "data longer than its size is refused", in: "5\r\nhelloX\r\n", data: "hello", err: ErrBadChunk, consumed: 8},
	{name: "a bare LF after chunk data is refused", in: "5\r\nhello\n0\r\n\r\n", data: "hello", err: ErrBadChunk, consumed: 8},
	{name: "a CR not followed by LF after chunk data is refused", in: "5\r\nhello\r0", data: "hello", err: ErrBadChunk, consumed: 9},
	{name: "a seventeenth hex digit is refused", in: "00000000000000001\r\n", err: ErrBadChunk, consumed: 16},
	{name: "a size over 1<<62 is refused", in: "4000000000000001\r\n", err: ErrBadChunk, consumed: 15},
	{name: "the largest 64-bit size is refused", in: "ffffffffffffffff\r\n", err: ErrBadChunk, consumed: 15},
	{name: "junk after the size is refused", in: "5 x\r\n", err: ErrBadChunk, consumed: 2},
	{name: "a NUL in an extension is refused", in: "5;a\x00b\r\n", err: ErrBadChunk, consumed: 3},
	{name: "a bare LF in an extension is refused", in: "5;a\nb", err: ErrBadChunk, consumed: 3},
	{name: "an extension over the limit is refused", in: "5;" + strings.Repeat("x", maxChunkLineExtra) + "\r\n", err: ErrChunkExtTooLong, consumed: 1 + maxChunkLineExtra},
	{name: "an invalid byte at the extension limit is a bad chunk", in: "5;" + strings.Repeat("x", maxChunkLineExtra-1) + "\x00", err: ErrBadChunk, consumed: 1 + maxChunkLineExtra},
	{name: "whitespace over the limit is refused", in: "5" + strings.Repeat(" ", maxChunkLineExtra+1) + ";\r\n", err: ErrChunkExtTooLong, consumed: 1 + maxChunkLineExtra},
	{name: "an obs-folded trailer is refused", in: "0\r\nA: b\r\n c\r\n\r\n", err: ErrBadChunk, consumed: 9},
	{name: "a trailer line without a colon is refused", in: "0\r\nNoColon\r\n\r\n", err: ErrBadChunk, consumed: 10},
	{name: "a trailer with an empty name is refused", in: "0\r\n: v\r\n\r\n", err: ErrBadChunk, consumed: 3},
	{name: "a bare LF in a trailer is refused", in: "0\r\nA: b\nc", err: ErrBadChunk, consumed: 7},
	{name: "a NUL in a trailer value is refused", in: "0\r\nA: \x00\r\n", err: ErrBadChunk, consumed: 6},
	{name: "a trailer section over the limit is refused", in: "0\r\nX: " + strings.Repeat("y", maxTrailer-2) + "\r\n\r\n", err: ErrTrailerTooLarge, consumed: 3 + maxTrailer},
	{name: "trailer lines add up against the limit", in: "0\r\n" + strings.Repeat("X: "+strings.Repeat("y", 3000)+"\r\n", 3) + "\r\n", err: ErrTrailerTooLarge, consumed: 3 + 2*3005 + (maxTrailer - 2*3003)},
	{name: "a trailer name over the limit is refused", in: "0\r\n" + strings.Repeat("X", maxTrailer+1), err: ErrTrailerTooLarge, consumed: 3 + maxTrailer},
	{name: "a body ending in CR CR is refused", in: "0\r\n\r\r", err: ErrBadChunk, consumed: 4},
	{name: "a body ending in a bare LF is refused", in: "0\r\n\n", err: ErrBadChunk, consumed: 3},
}

// decodeResult is what feeding an input to a ChunkedDecoder produced.
type decodeResult struct {
	data     string
	done     bool
	consumed int
	err      error
}

// decodeSplit feeds in to a new ChunkedDecoder in pieces that end at the
// ascending offsets cuts, as a caller reading from a socket would, and
// checks the Decode contract on every call.
func decodeSplit(t testing.TB, in []byte, cuts []int) decodeResult {
	t.Helper()
	var (
		d    ChunkedDecoder
		r    decodeResult
		data []byte
		prev int
	)
	for _, end := range append(cuts, len(in)) {
		p := in[prev:end]
		prev = end
		for len(p) > 0 && !r.done && r.err == nil {
			n, chunk, done, err := d.Decode(p)
			switch {
			case n < 0 || n > len(p):
				t.Fatalf("Decode consumed %d of %d bytes", n, len(p))
			case n == 0 && err == nil && !done:
				t.Fatalf("Decode made no progress on %q", p)
			case len(chunk) > 0 && &chunk[0] != &p[n-len(chunk)]:
				t.Fatalf("Decode returned data that does not end the consumed bytes")
			case len(chunk) > 0 && (done || err != nil):
				t.Fatalf("Decode returned data with done=%v err=%v", done, err)
			}
			data = append(data, chunk...)
			r.consumed += n
			r.done, r.err = done, err
			p = p[n:]
		}
	}
	r.data = string(data)
	return r
}

func (c chunkCase) check(t *testing.T, got decodeResult, how string) {
	t.Helper()
	want := decodeResult{data: c.data, done: c.done, consumed: c.consumed, err: c.err}
	if want.consumed < 0 {
		want.consumed = len(c.in)
	}
	if got != want {
		t.Fatalf("decoding %s: got data %q done %v consumed %d err %v\nwant data %q done %v consumed %d err %v",
			how, short(got.data), got.done, got.consumed, got.err, short(want.data), want.done, want.consumed, want.err)
	}
}

func TestChunkedDecoder(t *testing.T) { checkChunkCases(t, chunkCases) }

// checkChunkCases decodes each case whole, byte by byte, and split at every
// one (short inputs: every two) places: the result must not depend on how
// the input arrives.
func checkChunkCases(t *testing.T, cases []chunkCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(c.in)
			c.check(t, decodeSplit(t, in, nil), "in one piece")

			bytewise := make([]int, len(in))
			for i := range bytewise {
				bytewise[i] = i
			}
			c.check(t, decodeSplit(t, in, bytewise), "byte by byte")

			for i := range len(in) + 1 {
				c.check(t, decodeSplit(t, in, []int{i}), fmt.Sprintf("split at %d", i))
			}
			if len(in) > 64 {
				return
			}
			for i := range len(in) + 1 {
				for j := i; j <= len(in); j++ {
					c.check(t, decodeSplit(t, in, []int{i, j}), fmt.Sprintf("split at %d and %d", i, j))
				}
			}
		})
	}
}

func TestChunkedDecoderLifecycle(t *testing.T) {
	const body = "5\r\nhello\r\n0\r\n\r\n"
	cases := []struct {
		name string
		run  func(t *testing.T, d *ChunkedDecoder)
	}{
		{"an error is sticky until Reset", func(t *testing.T, d *ChunkedDecoder) {
			if _, _, _, err := d.Decode([]byte("zz")); err != ErrBadChunk {
				t.Fatalf("first Decode error = %v, want ErrBadChunk", err)
			}
			n, data, done, err := d.Decode([]byte(body))
			if n != 0 || data != nil || done || err != ErrBadChunk {
				t.Fatalf("Decode after error = %d, %q, %v, %v, want 0, nil, false, ErrBadChunk", n, data, done, err)
			}
		}},
		{"a finished decoder stays done and consumes nothing", func(t *testing.T, d *ChunkedDecoder) {
			if _, _, done, err := d.Decode([]byte("0\r\n\r\n")); !done || err != nil {
				t.Fatalf("Decode of an empty body = done %v, err %v", done, err)
			}
			n, data, done, err := d.Decode([]byte(body))
			if n != 0 || data != nil || !done || err != nil {
				t.Fatalf("Decode after done = %d, %q, %v, %v, want 0, nil, true, nil", n, data, done, err)
			}
			if n, _, done, _ := d.Decode(nil); n != 0 || !done {
				t.Fatalf("Decode(nil) after done = %d, %v, want 0, true", n, done)
			}
		}},
		{"Reset after an error decodes a new body", func(t *testing.T, d *ChunkedDecoder) {
			d.Decode([]byte("zz"))
			d.Reset()
			n, data, _, err := d.Decode([]byte(body))
			if err != nil || string(data) != "hello" || n != 8 {
				t.Fatalf("Decode after Reset = %d, %q, %v, want 8, \"hello\", nil", n, data, err)
			}
		}},
		{"Reset in the middle of a body starts over", func(t *testing.T, d *ChunkedDecoder) {
			d.Decode([]byte("5\r\nhe"))
			d.Reset()
			if _, data, _, err := d.Decode([]byte(body)); err != nil || string(data) != "hello" {
				t.Fatalf("Decode after Reset = %q, %v, want \"hello\", nil", data, err)
			}
		}},
		{"empty input consumes nothing", func(t *testing.T, d *ChunkedDecoder) {
			if n, data, done, err := d.Decode(nil); n != 0 || data != nil || done || err != nil {
				t.Fatalf("Decode(nil) = %d, %q, %v, %v, want 0, nil, false, nil", n, data, done, err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var d ChunkedDecoder
			c.run(t, &d)
		})
	}
}

// chunkedBody encodes data in chunks of at most size bytes, with a
// trailer when trailer is not empty.
func chunkedBody(data string, size int, trailer string) []byte {
	var b []byte
	for len(data) > 0 {
		n := min(size, len(data))
		b = fmt.Appendf(b, "%x\r\n%s\r\n", n, data[:n])
		data = data[n:]
	}
	b = append(b, "0\r\n"...)
	b = append(b, trailer...)
	return append(b, "\r\n"...)
}

func BenchmarkChunkedDecoder(b *testing.B) {
	cases := []struct {
		name string
		body []byte
	}{
		{"Hello, Go! in one chunk", chunkedBody("Hello, Go!", 10, "")},
		{"16 KiB in 1 KiB chunks", chunkedBody(strings.Repeat("x", 16<<10), 1<<10, "")},
		{"100 one-byte chunks", chunkedBody(strings.Repeat("x", 100), 1, "")},
		{"with extensions and trailers", []byte("a;name=value\r\nHello, Go!\r\n0\r\nX-Checksum: abc\r\nX-Time: 12ms\r\n\r\n")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var d ChunkedDecoder
			b.ReportAllocs()
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				d.Reset()
				p, done := c.body, false
				for len(p) > 0 && !done {
					n, _, dn, err := d.Decode(p)
					if err != nil {
						b.Fatal(err)
					}
					p, done = p[n:], dn
				}
				if !done {
					b.Fatal("body not done")
				}
			}
		})
	}
}
