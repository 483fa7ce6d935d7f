package websocket

import (
	"errors"
	"io"
	"math"
	"sync"

	"github.com/klauspost/compress/flate"
)

// compressLevel is the flate level for a 15-bit window: the fastest
// matching encoder, the right trade for many small messages. A smaller
// negotiated window uses klauspost's windowed encoder instead.
const compressLevel = 1

// syncTail ends a sync-flushed deflate stream; RFC 7692 section 7.2.1 strips
// it from each message and section 7.2.2 puts it back before inflating.
var syncTail = [4]byte{0x00, 0x00, 0xff, 0xff}

// appendWriter is the io.Writer a compressor writes to: it appends to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// compressor is a flate writer bound for life to its own appendWriter, so
// compressing into a caller's slice allocates nothing.
type compressor struct {
	fw  *flate.Writer
	out appendWriter
}

// compressorPools hold compressors for messages compressed without context
// takeover, one pool per window size (index: bits, 8-15).
var compressorPools [16]sync.Pool

func newCompressor(bits int) *compressor {
	c := new(compressor)
	var err error
	if bits >= 15 {
		c.fw, err = flate.NewWriter(&c.out, compressLevel)
	} else {
		c.fw, err = flate.NewWriterWindow(&c.out, 1<<bits)
	}
	if err != nil {
		panic("websocket: flate writer: " + err.Error()) // only for a bad constant
	}
	return c
}

// getCompressor returns a fresh (reset) compressor from the pool for bits.
func getCompressor(bits int) *compressor {
	if v := compressorPools[bits].Get(); v != nil {
		c := v.(*compressor)
		c.fw.Reset(&c.out)
		return c
	}
	return newCompressor(bits)
}

func putCompressor(c *compressor, bits int) {
	c.out.b = nil
	compressorPools[bits].Put(c)
}

// compress appends p, compressed and sync-flushed without the tail, to dst.
func (c *compressor) compress(dst, p []byte) []byte {
	c.out.b = dst
	c.fw.Write(p) // appendWriter never fails, so neither does the writer
	c.fw.Flush()
	dst, c.out.b = c.out.b, nil
	if n := len(dst); n >= 4 && [4]byte(dst[n-4:]) == syncTail {
		dst = dst[:n-4]
	}
	return dst
}

// tailReader yields p and then the 4-byte sync tail: a message's compressed
// payload as flate wants it, without copying it. It is a flate.Reader, so
// the decompressor reads it byte by byte and never past its end.
type tailReader struct {
	p    []byte
	tail int
}

func (r *tailReader) ReadByte() (byte, error) {
	if len(r.p) > 0 {
		b := r.p[0]
		r.p = r.p[1:]
		return b, nil
	}
	if r.tail < len(syncTail) {
		r.tail++
		return syncTail[r.tail-1], nil
	}
	return 0, io.EOF
}

func (r *tailReader) Read(b []byte) (int, error) {
	n := copy(b, r.p)
	r.p = r.p[n:]
	if n < len(b) && r.tail < len(syncTail) {
		k := copy(b[n:], syncTail[r.tail:])
		r.tail += k
		n += k
	}
	if n == 0 && len(b) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// inflater is a pooled decompressor and its input.
type inflater struct {
	fr io.ReadCloser // a flate.Resetter too
	in tailReader
}

var inflaterPool = sync.Pool{New: func() any {
	f := new(inflater)
	f.fr = flate.NewReader(&f.in)
	return f
}}

// inflate appends the decompression of compressed (a message's payload, tail
// stripped) to dst, starting from the history window dict, and stops with
// errTooBig as soon as the output from start on would pass limitBytes: a
// decompression bomb costs at most limitBytes+1 bytes of buffer.
func inflate(dst []byte, start int, compressed, dict []byte, limitBytes int) ([]byte, error) {
	f := inflaterPool.Get().(*inflater)
	defer inflaterPool.Put(f)
	f.in = tailReader{p: compressed}
	f.fr.(flate.Resetter).Reset(&f.in, dict)
	defer func() { f.in = tailReader{} }()
	limit := start + limitBytes + 1 // one byte past the limit tells "too big"
	for {
		if len(dst) == cap(dst) {
			if cap(dst) >= limit {
				return dst, errTooBig
			}
			dst = grow(dst, min(max(2*cap(dst), 1024), limit))
		}
		n, err := f.fr.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if len(dst)-start > limitBytes {
			return dst, errTooBig
		}
		switch {
		case err == nil:
		case errors.Is(err, io.ErrUnexpectedEOF) && len(f.in.p) == 0 && f.in.tail == len(syncTail):
			return dst, nil // the stream stopped after the sync tail: the message's end
		case err == io.EOF && len(f.in.p) == 0:
			return dst, nil // a final block ended the stream
		default:
			return dst, errBadDeflate
		}
	}
}

// grow returns b with capacity c (> cap(b)), its bytes kept.
func grow(b []byte, c int) []byte {
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}

// AppendCompressedFrame appends one unmasked, compressed frame (RSV1, FIN)
// carrying payload, compressed without context and with a 15-bit window:
// a frame a server builds once and writes to every connection whose
// SharedCompression reports true (to the others it sends AppendMessage's
// own frame, or AppendFrame's uncompressed one).
func AppendCompressedFrame(dst []byte, op Opcode, payload []byte) []byte {
	comp := getCompressor(15)
	dst = appendCompressed(dst, op, payload, comp, nil)
	putCompressor(comp, 15)
	return dst
}

// appendCompressed appends a compressed frame: it leaves room for the
// longest header, compresses after it, then moves the frame down to the
// header its compressed length needs.
func appendCompressed(dst []byte, op Opcode, payload []byte, comp *compressor, mask *[4]byte) []byte {
	start := len(dst)
	room := MaxFrameHeaderLen
	dst = append(dst, make([]byte, room)...) // compiles to a clear, no allocation
	dst = comp.compress(dst, payload)
	n := len(dst) - start - room
	var hb [MaxFrameHeaderLen]byte
	hdr := appendHeader(hb[:0], op, true, true, n, mask)
	h := len(hdr)
	copy(dst[start+room-h:], hdr)
	if h != room {
		copy(dst[start:], dst[start+room-h:])
		dst = dst[:start+h+n]
	}
	if mask != nil {
		Mask(dst[start+h:], *mask, 0)
	}
	return dst
}

// CompressedBound returns the most a message that inflates to n bytes may
// take compressed, as Conn accepts it: n plus the framing a deflater adds
// to data it cannot shrink (stored blocks, a few bytes in every 4 KiB at
// the worst; the bound zlib's deflateBound gives) and a sync flush tail.
func CompressedBound(n int) int {
	extra := n>>12 + n>>14 + n>>25 + 13 + 4
	if n > math.MaxInt-extra {
		return math.MaxInt
	}
	return n + extra
}
