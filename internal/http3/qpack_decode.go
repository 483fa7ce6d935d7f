package http3

import (
	"bytes"
	"errors"

	"golang.org/x/net/http2/hpack"

	"github.com/gust-http/gust/internal/head"
	"github.com/gust-http/gust/internal/quic"
)

// Field is one decoded field line: head.Field, so a decoded section fills a
// head.Request's Headers as it is.
type Field = head.Field

// DefaultMaxFieldSectionSize is the decoded size a zero Decoder accepts in
// one field section: 64 KiB, counted as RFC 9114 section 4.2.2 does.
const DefaultMaxFieldSectionSize = 64 << 10

// ErrFieldSectionTooLarge is returned by Decoder for a field section whose
// decoded size passes the limit. It is the stream's problem, not the
// connection's (QPACK keeps no state here): a server answers 431, a client
// drops the response (RFC 9114 section 4.2.2).
var ErrFieldSectionTooLarge = errors.New("http3: field section larger than the limit")

// Decoder decodes field sections encoded with QPACK against a dynamic
// table of capacity 0, the capacity our SETTINGS advertise. Any reference
// to the dynamic table, a Required Insert Count other than 0, a negative
// Base, a static index past the table and any malformed line are
// QPACK_DECOMPRESSION_FAILED ConnErrors (RFC 9204 sections 2.2.3, 3.1 and
// 4.5). Work is bounded by the section's bytes, and the decoded size
// (name, value and 32 bytes per field) by MaxFieldSectionSize, so a small
// section of many references cannot blow up into a large one.
//
// Decoded names and values alias the section (plain literals), the static
// table (never to be modified), or the Decoder's buffer (Huffman-coded literals): they
// are valid until the next Decode and while the section is unchanged. A
// Decoder does not allocate once its buffer has grown.
type Decoder struct {
	// MaxFieldSectionSize bounds a section's decoded size: our
	// SETTINGS_MAX_FIELD_SECTION_SIZE. Zero means
	// DefaultMaxFieldSectionSize.
	MaxFieldSectionSize uint64

	buf  []byte
	sink appendSink
	memo huffmanMemo
}

// huffmanMemo remembers the last few short Huffman strings decoded and
// what they decoded to: a peer sends the same field values again and
// again (content-type, server, a date for a whole second), and comparing
// bytes costs far less than decoding them.
type huffmanMemo struct {
	raw, out [memoEntries][]byte
	next     int
}

const (
	memoEntries = 8
	memoMaxRaw  = 64 // longer strings are decoded each time
)

// find returns what raw decoded to, if it is remembered.
func (m *huffmanMemo) find(raw []byte) ([]byte, bool) {
	for i := range m.raw {
		if m.raw[i] != nil && bytes.Equal(m.raw[i], raw) {
			return m.out[i], true
		}
	}
	return nil, false
}

// keep remembers that raw decodes to out, in place of the oldest entry.
func (m *huffmanMemo) keep(raw, out []byte) {
	i := m.next
	m.next = (i + 1) % memoEntries
	m.raw[i] = append(m.raw[i][:0], raw...)
	m.out[i] = append(m.out[i][:0], out...)
}

// appendSink lets hpack.HuffmanDecode append into the Decoder's buffer.
type appendSink struct{ b []byte }

// Write appends p; it never fails.
func (s *appendSink) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}

var (
	errDynamicRef = ConnError{Code: ErrCodeQPACKDecompressionFailed, Reason: "reference to the dynamic table, whose capacity is 0"}
	errTruncated  = ConnError{Code: ErrCodeQPACKDecompressionFailed, Reason: "field section truncated"}
	errStaticIdx  = ConnError{Code: ErrCodeQPACKDecompressionFailed, Reason: "static table index out of range"}
	errBadInt     = ConnError{Code: ErrCodeQPACKDecompressionFailed, Reason: "integer too large"}
	errHuffman    = ConnError{Code: ErrCodeQPACKDecompressionFailed, Reason: "invalid Huffman string"}
	errNegBase    = ConnError{Code: ErrCodeQPACKDecompressionFailed, Reason: "negative Base"}
)

// Decode appends the fields of section to dst and returns it.
func (d *Decoder) Decode(dst []Field, section []byte) ([]Field, error) {
	err := d.decode(section, func(name, value []byte) { dst = append(dst, Field{Name: name, Value: value}) })
	return dst, err
}

// DecodeFunc calls emit with each field of section in order; name and
// value are valid as Decode's results are. On an error, the fields already
// emitted are to be discarded.
func (d *Decoder) DecodeFunc(section []byte, emit func(name, value []byte)) error {
	return d.decode(section, emit)
}

func (d *Decoder) decode(p []byte, emit func(name, value []byte)) error {
	limit := d.MaxFieldSectionSize
	if limit == 0 {
		limit = DefaultMaxFieldSectionSize
	}
	// A Huffman string decodes to at most 8/5 of its bytes (the shortest
	// code is 5 bits), so this capacity holds every decoded string of the
	// section and earlier views never move.
	if need := len(p)/5*8 + 8; cap(d.buf) < need {
		d.buf = make([]byte, 0, need)
	}
	d.sink.b = d.buf[:0]
	ric, n, err := readPrefixInt(p, 8)
	if err != nil {
		return err
	}
	p = p[n:]
	if ric != 0 {
		return errDynamicRef
	}
	if len(p) == 0 {
		return errTruncated
	}
	sign := p[0]&0x80 != 0
	_, n, err = readPrefixInt(p, 7)
	if err != nil {
		return err
	}
	p = p[n:]
	if sign { // Base = 0 - DeltaBase - 1
		return errNegBase
	}
	var size uint64
	for len(p) > 0 {
		var name, value []byte
		c := p[0]
		switch {
		case c&0x80 != 0: // indexed field line: 1 T index(6+)
			if c&0x40 == 0 {
				return errDynamicRef
			}
			i, n, err := readPrefixInt(p, 6)
			if err != nil {
				return err
			}
			p = p[n:]
			if i >= uint64(len(staticTable)) {
				return errStaticIdx
			}
			name, value = staticName(i), staticValue(i)
		case c&0xc0 == 0x40: // literal with name reference: 01 N T index(4+)
			if c&0x10 == 0 {
				return errDynamicRef
			}
			i, n, err := readPrefixInt(p, 4)
			if err != nil {
				return err
			}
			p = p[n:]
			if i >= uint64(len(staticTable)) {
				return errStaticIdx
			}
			name = staticName(i)
			if value, p, err = d.readString(p, 7, limit-size); err != nil {
				return err
			}
		case c&0xe0 == 0x20: // literal with literal name: 001 N H len(3+)
			if name, p, err = d.readString(p, 3, limit-size); err != nil {
				return err
			}
			if value, p, err = d.readString(p, 7, limit-size); err != nil {
				return err
			}
		default: // 0001 and 0000: post-Base index or name reference
			return errDynamicRef
		}
		size += uint64(len(name)) + uint64(len(value)) + 32
		if size > limit {
			return ErrFieldSectionTooLarge
		}
		emit(name, value)
	}
	d.buf = d.sink.b[:0]
	return nil
}

// readString reads a string literal whose length has an n-bit prefix, the
// Huffman flag just above it. A string longer than budget is refused before
// it is decoded or copied.
func (d *Decoder) readString(p []byte, n uint, budget uint64) (s, rest []byte, err error) {
	if len(p) == 0 {
		return nil, nil, errTruncated
	}
	huff := p[0]&(1<<n) != 0
	l, k, err := readPrefixInt(p, n)
	if err != nil {
		return nil, nil, err
	}
	p = p[k:]
	if l > uint64(len(p)) {
		return nil, nil, errTruncated
	}
	raw := p[:l:l]
	rest = p[l:]
	if !huff {
		if l > budget {
			return nil, nil, ErrFieldSectionTooLarge
		}
		return raw, rest, nil
	}
	if l*8/30 > budget { // at least this many symbols: the longest code is 30 bits
		return nil, nil, ErrFieldSectionTooLarge
	}
	start := len(d.sink.b)
	if out, ok := d.memo.find(raw); ok {
		d.sink.b = append(d.sink.b, out...)
	} else {
		if _, err := hpack.HuffmanDecode(&d.sink, raw); err != nil {
			return nil, nil, errHuffman
		}
		if len(raw) <= memoMaxRaw {
			d.memo.keep(raw, d.sink.b[start:])
		}
	}
	s = d.sink.b[start:len(d.sink.b):len(d.sink.b)]
	if uint64(len(s)) > budget {
		return nil, nil, ErrFieldSectionTooLarge
	}
	return s, rest, nil
}

// readPrefixInt reads an integer with an n-bit prefix (RFC 7541 section
// 5.1) up to 2^62-1, which RFC 9204 section 4.1.1 requires a decoder to
// handle; larger ones, and encodings padded past ten bytes, are refused.
func readPrefixInt(p []byte, n uint) (v uint64, used int, err error) {
	if len(p) == 0 {
		return 0, 0, errTruncated
	}
	max := uint64(1)<<n - 1
	v = uint64(p[0]) & max
	if v < max {
		return v, 1, nil
	}
	var shift uint
	for i := 1; i < len(p); i++ {
		if shift > 56 {
			return 0, 0, errBadInt
		}
		c := p[i]
		v += uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			if v > quic.MaxVarint {
				return 0, 0, errBadInt
			}
			return v, i + 1, nil
		}
		shift += 7
	}
	return 0, 0, errTruncated
}

// The static table's names and values as byte slices, made once.
var staticBytes = func() (t [len(staticTable)][2][]byte) {
	for i, e := range staticTable {
		n, v := []byte(e.name), []byte(e.value)
		t[i] = [2][]byte{n[:len(n):len(n)], v[:len(v):len(v)]}
	}
	return t
}()

func staticName(i uint64) []byte  { return staticBytes[i][0] }
func staticValue(i uint64) []byte { return staticBytes[i][1] }
