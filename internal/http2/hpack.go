package http2

import (
	"errors"

	"golang.org/x/net/http2/hpack"
)

// HeaderLimits bound what one peer's header blocks may cost to decode. The
// zero value of each field picks the default named beside it.
type HeaderLimits struct {
	// MaxHeaderListSize bounds a block's decoded size as RFC 9113 section
	// 6.5.2 counts it: name, value and 32 bytes per field. A larger block is
	// still decoded to keep the HPACK state in sync, but its fields past the
	// limit are neither emitted nor copied, and End reports
	// ErrHeaderListTooLarge. Default 64 KiB.
	MaxHeaderListSize uint32
	// MaxTableSize bounds the dynamic table the peer's encoder may use (our
	// SETTINGS_HEADER_TABLE_SIZE). Default 4096. A value below 4096 binds
	// only after the peer acknowledged the SETTINGS that carried it (see
	// HeaderDecoder.SettingsAcked); until then the peer may use 4096.
	MaxTableSize uint32
	// MaxBlockBytes bounds the compressed bytes of one block, HEADERS and
	// CONTINUATION fragments together. Default twice MaxHeaderListSize.
	MaxBlockBytes int
	// MaxContinuations bounds the CONTINUATION frames of one block, so a
	// flood of tiny or empty ones ends the connection. Default 32.
	MaxContinuations int
}

func (l HeaderLimits) withDefaults() HeaderLimits {
	if l.MaxHeaderListSize == 0 {
		l.MaxHeaderListSize = 64 << 10
	}
	if l.MaxTableSize == 0 {
		l.MaxTableSize = DefaultHeaderTableSize
	}
	if l.MaxBlockBytes == 0 {
		l.MaxBlockBytes = 2 * int(l.MaxHeaderListSize)
	}
	if l.MaxContinuations == 0 {
		l.MaxContinuations = 32
	}
	return l
}

// ErrHeaderListTooLarge is reported by HeaderDecoder.End for a block whose
// decoded size exceeds MaxHeaderListSize. The decoder stays usable: it is a
// stream's problem, not the connection's.
var ErrHeaderListTooLarge = errors.New("http2: header list larger than the limit")

// HeaderDecoder decodes a peer's header blocks, fragment by fragment as
// HEADERS and CONTINUATION frames arrive, within HeaderLimits. Its work per
// block is bounded by the block's compressed bytes: an HPACK bomb (a small
// block of references to a large table entry) stops being copied at the
// limit. Errors from WriteFragment end the connection: COMPRESSION_ERROR for
// an undecodable block, ENHANCE_YOUR_CALM for a block past MaxBlockBytes or
// MaxContinuations.
type HeaderDecoder struct {
	dec      *hpack.Decoder
	limits   HeaderLimits
	emit     func(name, value string)
	size     uint32
	bytes    int
	frames   int
	tooLarge bool
}

// NewHeaderDecoder returns a decoder calling emit for each field of a block
// within the limits; the strings may be kept.
func NewHeaderDecoder(l HeaderLimits, emit func(name, value string)) *HeaderDecoder {
	d := &HeaderDecoder{limits: l.withDefaults(), emit: emit}
	d.dec = hpack.NewDecoder(max(d.limits.MaxTableSize, DefaultHeaderTableSize), d.onField)
	d.dec.SetMaxStringLength(int(d.limits.MaxHeaderListSize))
	return d
}

// SettingsAcked applies MaxTableSize as the bound on the peer's table-size
// updates once the peer acknowledged the SETTINGS announcing it.
func (d *HeaderDecoder) SettingsAcked() {
	d.dec.SetAllowedMaxDynamicTableSize(d.limits.MaxTableSize)
}

// Limits returns the limits in force, defaults filled in.
func (d *HeaderDecoder) Limits() HeaderLimits { return d.limits }

func (d *HeaderDecoder) onField(f hpack.HeaderField) {
	d.size += f.Size()
	if d.size > d.limits.MaxHeaderListSize || d.tooLarge {
		d.tooLarge = true
		d.dec.SetEmitEnabled(false)
		return
	}
	d.emit(f.Name, f.Value)
}

// Begin starts a new block.
func (d *HeaderDecoder) Begin() {
	d.size, d.bytes, d.frames, d.tooLarge = 0, 0, 0, false
	d.dec.SetEmitEnabled(true)
}

// WriteFragment decodes one fragment of the current block; continuation
// says it came in a CONTINUATION frame.
func (d *HeaderDecoder) WriteFragment(frag []byte, continuation bool) error {
	if continuation {
		d.frames++
		if d.frames > d.limits.MaxContinuations {
			return connErr(ErrCodeEnhanceYourCalm, "too many CONTINUATION frames in one header block")
		}
	}
	d.bytes += len(frag)
	if d.bytes > d.limits.MaxBlockBytes {
		return connErr(ErrCodeEnhanceYourCalm, "header block larger than the limit")
	}
	if _, err := d.dec.Write(frag); err != nil {
		if errors.Is(err, hpack.ErrStringLength) {
			return connErr(ErrCodeEnhanceYourCalm, "header field larger than the header list limit")
		}
		return connErr(ErrCodeCompression, "undecodable header block")
	}
	return nil
}

// End finishes the block after its END_HEADERS fragment. It returns a
// ConnError for a truncated block, ErrHeaderListTooLarge for a block past
// MaxHeaderListSize, nil otherwise.
func (d *HeaderDecoder) End() error {
	if err := d.dec.Close(); err != nil {
		return connErr(ErrCodeCompression, "truncated header block")
	}
	if d.tooLarge {
		return ErrHeaderListTooLarge
	}
	return nil
}

// HeaderEncoder encodes header blocks into a reused buffer with HPACK's
// dynamic table, so encoding the same fields again costs no allocation.
type HeaderEncoder struct {
	enc *hpack.Encoder
	w   appendWriter
}

type appendWriter struct{ b []byte }

// Write appends p to the buffer; it never fails.
func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// NewHeaderEncoder returns an encoder using a 4096-byte dynamic table, the
// size every decoder starts with.
func NewHeaderEncoder() *HeaderEncoder {
	e := &HeaderEncoder{}
	e.enc = hpack.NewEncoder(&e.w)
	return e
}

// SetPeerTableSize applies the peer's SETTINGS_HEADER_TABLE_SIZE: the
// encoder's table shrinks to fit it (never grows past 4096), and the next
// block announces the change.
func (e *HeaderEncoder) SetPeerTableSize(v uint32) {
	if v > DefaultHeaderTableSize {
		v = DefaultHeaderTableSize
	}
	e.enc.SetMaxDynamicTableSizeLimit(v)
}

// Begin starts a new block, dropping the previous one.
func (e *HeaderEncoder) Begin() { e.w.b = e.w.b[:0] }

// Field encodes one field; names must be lowercase (RFC 9113 section 8.2).
func (e *HeaderEncoder) Field(name, value string) {
	e.enc.WriteField(hpack.HeaderField{Name: name, Value: value})
}

// Literal encodes one field as a literal never indexed (RFC 7541 section
// 6.2.3): the table keeps neither name nor value, so they may be views of
// bytes that change afterwards.
func (e *HeaderEncoder) Literal(name, value string) {
	e.enc.WriteField(hpack.HeaderField{Name: name, Value: value, Sensitive: true})
}

// Block returns the encoded block, valid until the next Begin.
func (e *HeaderEncoder) Block() []byte { return e.w.b }
