package http1

import "bytes"

// Limits of the ChunkedDecoder. They bound the work a peer can make the
// decoder do on bytes that carry no data.
const (
	maxChunkSize       = 1 << 62 // largest chunk size accepted
	maxChunkSizeDigits = 16      // hex digits in a chunk size, leading zeros included
	maxChunkLineExtra  = 4 << 10 // bytes after the size on a chunk line: BWS and extensions
	maxTrailer         = 8 << 10 // bytes of trailer field lines, line endings excluded
)

// chunkState is where a ChunkedDecoder is in the chunked grammar of
// RFC 9112 section 7.1.
type chunkState uint8

const (
	stSize           chunkState = iota // in the hex digits of a chunk size
	stSizeExtra                        // after the size: BWS, then ";" or CR
	stExtNameStart                     // after ";": BWS, then the first byte of a name
	stExtName                          // in an extension name
	stExtAfterName                     // BWS after a name: "=" or ";" must follow
	stExtValueStart                    // after "=": BWS, then a token or a quoted-string
	stExtToken                         // in a token value
	stExtQuoted                        // in a quoted-string value
	stExtQuotedPair                    // after a backslash in a quoted-string
	stExtAfterQuoted                   // right after a quoted-string's closing quote
	stExtAfterValue                    // BWS after a value: ";" must follow
	stSizeLF                           // after the CR ending a chunk line
	stData                             // in chunk data; size bytes remain
	stDataCR                           // after chunk data, before its CR
	stDataLF                           // after the CR following chunk data
	stTrailerStart                     // at the start of a trailer line or of the final empty line
	stTrailerName                      // in a trailer field name, up to ':'
	stTrailerValue                     // in a trailer field value, up to CR
	stTrailerLF                        // after the CR ending a trailer field line
	stEndLF                            // after the CR of the final empty line
	stDone                             // the body has ended
)

// ChunkedDecoder decodes a chunked body incrementally, across any split of
// the input; its zero value is ready.
//
// Chunk extensions and trailer fields are checked and skipped. Unlike
// ParseResponseHead, the decoder requires CRLF line endings and refuses a
// bare LF or CR: disagreement about where a chunk ends is the classic
// request-smuggling vector, so the framing is read strictly.
type ChunkedDecoder struct {
	size   uint64 // the chunk size being parsed, then the data bytes left
	count  int    // bytes counted against the current limit
	digits uint8  // hex digits of the chunk size so far
	state  chunkState
	err    error // sticky: once set, Decode returns it until Reset
}

// Reset makes d ready to decode a new body.
func (d *ChunkedDecoder) Reset() { *d = ChunkedDecoder{} }

// Decode consumes bytes from the start of p. It returns how many bytes it
// consumed, the chunk data contained in the consumed bytes (a subslice of p,
// at most one contiguous data run per call, possibly empty), and done=true
// once the last chunk and the trailer section, ending with the empty line,
// have been consumed. Bytes after the end of the body are not consumed.
//
// Callers loop:
//
//	for len(p) > 0 && !done {
//		n, data, done, err = d.Decode(p)
//		p = p[n:]
//	}
//
// Decode never returns n == 0 with a nil error and done false when p is not
// empty. On error, n counts the bytes before the offending one and data is
// empty; the decoder then keeps returning the same error until Reset. Once
// done, Decode consumes nothing and keeps reporting done. The errors are
// ErrBadChunk, ErrChunkExtTooLong and ErrTrailerTooLarge. Decode does not
// allocate.
func (d *ChunkedDecoder) Decode(p []byte) (n int, data []byte, done bool, err error) {
	if d.err != nil {
		return 0, nil, false, d.err
	}
	i := 0
	for i < len(p) {
		c := p[i]
		switch d.state {
		case stSize:
			// A tight loop over the digits, and a shortcut for the usual
			// CRLF after them, keep small chunks cheap.
			for ; i < len(p); i++ {
				v, ok := unhex(p[i])
				if !ok {
					break
				}
				if d.digits == maxChunkSizeDigits {
					return d.fail(i, ErrBadChunk)
				}
				d.size = d.size<<4 | v
				d.digits++
				if d.size > maxChunkSize {
					return d.fail(i, ErrBadChunk)
				}
			}
			if i == len(p) {
				break
			}
			if d.digits == 0 {
				return d.fail(i, ErrBadChunk)
			}
			d.state, d.count = stSizeExtra, 0
			if p[i] == '\r' && i+1 < len(p) && p[i+1] == '\n' {
				i += 2
				d.endChunkLine()
			}
		case stSizeExtra:
			switch c {
			case ' ', '\t':
				if d.count == maxChunkLineExtra {
					return d.fail(i, ErrChunkExtTooLong)
				}
				d.count++
			case ';':
				// The ';' counts against the limit like any extension byte.
				if d.count == maxChunkLineExtra {
					return d.fail(i, ErrChunkExtTooLong)
				}
				d.count++
				d.state = stExtNameStart
			case '\r':
				// BWS belongs to an extension (RFC 9112 section 7.1.1):
				// "5 " alone is not a chunk size.
				if d.count > 0 {
					return d.fail(i, ErrBadChunk)
				}
				d.state = stSizeLF
			default:
				return d.fail(i, ErrBadChunk)
			}
			i++
		case stExtNameStart, stExtName, stExtAfterName, stExtValueStart, stExtToken,
			stExtQuoted, stExtQuotedPair, stExtAfterQuoted, stExtAfterValue:
			for ; i < len(p) && d.state != stSizeLF; i++ {
				if err := d.extByte(p[i]); err != nil {
					return d.fail(i, err)
				}
			}
		case stSizeLF:
			if c != '\n' {
				return d.fail(i, ErrBadChunk)
			}
			d.endChunkLine()
			i++
		case stData:
			run := p[i:]
			if uint64(len(run)) > d.size {
				run = run[:d.size]
			}
			d.size -= uint64(len(run))
			if d.size == 0 {
				d.state = stDataCR
			}
			return i + len(run), run, false, nil
		case stDataCR:
			if c != '\r' {
				return d.fail(i, ErrBadChunk)
			}
			d.state = stDataLF
			i++
			if i < len(p) && p[i] == '\n' {
				d.state, d.size, d.digits = stSize, 0, 0
				i++
			}
		case stDataLF:
			if c != '\n' {
				return d.fail(i, ErrBadChunk)
			}
			d.state, d.size, d.digits = stSize, 0, 0
			i++
		case stTrailerStart:
			if c == '\r' {
				d.state = stEndLF
				i++
				continue
			}
			// A field name must start the line: this refuses obs-fold and
			// an empty name.
			if !tokenByte[c] {
				return d.fail(i, ErrBadChunk)
			}
			d.state = stTrailerName
		case stTrailerName:
			if c == ':' {
				d.state = stTrailerValue
			} else if !tokenByte[c] {
				return d.fail(i, ErrBadChunk)
			}
			if d.count == maxTrailer {
				return d.fail(i, ErrTrailerTooLarge)
			}
			d.count++
			i++
		case stTrailerValue:
			k, err := d.skipText(p[i:], maxTrailer, ErrTrailerTooLarge)
			i += k
			if err != nil {
				return d.fail(i, err)
			}
			if i < len(p) { // stopped at the CR
				d.state = stTrailerLF
				i++
			}
		case stTrailerLF:
			if c != '\n' {
				return d.fail(i, ErrBadChunk)
			}
			d.state = stTrailerStart
			i++
		case stEndLF:
			if c != '\n' {
				return d.fail(i, ErrBadChunk)
			}
			d.state = stDone
			return i + 1, nil, true, nil
		case stDone:
			return i, nil, true, nil
		}
	}
	return i, nil, d.state == stDone, nil
}

// endChunkLine moves past a chunk line: to the data, or to the trailer
// section after the last chunk.
func (d *ChunkedDecoder) endChunkLine() {
	if d.size == 0 {
		d.state, d.count = stTrailerStart, 0
	} else {
		d.state = stData
	}
}

// extByte takes the next byte of a chunk line's extensions, enforcing
// RFC 9112 section 7.1.1:
//
//	chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//	chunk-ext-name = token; chunk-ext-val = token / quoted-string
//
// so that no two readers can disagree on where a chunk line ends (an empty
// name, a name that is not a token or an unclosed quote is refused). Every
// byte counts against maxChunkLineExtra; an invalid byte is reported as
// ErrBadChunk even at the limit, so the result does not depend on how the
// input was split. The CR that ends the line moves to stSizeLF.
func (d *ChunkedDecoder) extByte(c byte) error {
	bws := c == ' ' || c == '\t'
	next := d.state
	switch d.state {
	case stExtNameStart:
		switch {
		case bws:
		case tokenByte[c]:
			next = stExtName
		default:
			return ErrBadChunk
		}
	case stExtName, stExtToken, stExtAfterQuoted:
		switch {
		case c == '\r':
			d.state = stSizeLF
			return nil
		case c == ';':
			next = stExtNameStart
		case c == '=' && d.state == stExtName:
			next = stExtValueStart
		case bws && d.state == stExtName:
			next = stExtAfterName
		case bws:
			next = stExtAfterValue
		case tokenByte[c] && d.state != stExtAfterQuoted:
		default:
			return ErrBadChunk
		}
	case stExtAfterName, stExtAfterValue:
		switch {
		case bws:
		case c == ';':
			next = stExtNameStart
		case c == '=' && d.state == stExtAfterName:
			next = stExtValueStart
		default:
			return ErrBadChunk
		}
	case stExtValueStart:
		switch {
		case bws:
		case c == '"':
			next = stExtQuoted
		case tokenByte[c]:
			next = stExtToken
		default:
			return ErrBadChunk
		}
	case stExtQuoted:
		switch {
		case c == '"':
			next = stExtAfterQuoted
		case c == '\\':
			next = stExtQuotedPair
		case !qdtextByte(c):
			return ErrBadChunk
		}
	case stExtQuotedPair:
		if !bws && (c < 0x21 || c == 0x7f) {
			return ErrBadChunk
		}
		next = stExtQuoted
	}
	if d.count == maxChunkLineExtra {
		return ErrChunkExtTooLong
	}
	d.count++
	d.state = next
	return nil
}

// qdtextByte reports whether c may stand unescaped in a quoted-string
// (RFC 9110 section 5.6.4): HTAB, SP, visible characters but '"' and '\\',
// and obs-text.
func qdtextByte(c byte) bool {
	return c == '\t' || c == ' ' || (c >= 0x21 && c != '"' && c != '\\' && c != 0x7f)
}

// skipText consumes the field-value bytes at the start of p up to, not
// including, the first CR, counting them in d.count against limit. It
// returns how many bytes it consumed and, if it stopped at a byte that is
// not allowed or over the limit, the error for that byte. The first
// offending byte decides the error, so the result does not depend on how
// the input was split.
func (d *ChunkedDecoder) skipText(p []byte, limit int, tooLong error) (int, error) {
	run := p
	if cr := bytes.IndexByte(p, '\r'); cr >= 0 {
		run = p[:cr]
	}
	allowed := limit - d.count
	over := len(run) > allowed
	if over {
		run = run[:allowed]
	}
	for k, c := range run {
		if !textByte[c] {
			d.count += k
			return k, ErrBadChunk
		}
	}
	d.count += len(run)
	if over {
		if !textByte[p[len(run)]] {
			return len(run), ErrBadChunk
		}
		return len(run), tooLong
	}
	return len(run), nil
}

// fail makes err sticky and returns it with the n bytes consumed before it.
func (d *ChunkedDecoder) fail(n int, err error) (int, []byte, bool, error) {
	d.err = err
	return n, nil, false, err
}

// unhex returns the value of the hex digit c.
func unhex(c byte) (uint64, bool) {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0'), true
	case 'a' <= c && c <= 'f':
		return uint64(c - 'a' + 10), true
	case 'A' <= c && c <= 'F':
		return uint64(c - 'A' + 10), true
	}
	return 0, false
}
